import { writeFile } from "node:fs/promises";
import { isAbsolute, relative, resolve } from "node:path";
import type { Command } from "commander";
import { loadConfigOrThrow, locateConfig } from "../config-file";
import type { CliContext } from "../context";
import { CliError } from "../errors";
import { loadGateway } from "../gateway-module";
import { writeJson, writeOut } from "../output";
import { collectList } from "../parse-option";

/** Options of `planfirst simulate`. */
interface SimulateOptions {
  config?: string;
  from: string[];
  ids: string[];
  plan: string[];
  planAllowance: string[];
  budget: string[];
  compare?: boolean;
  json?: boolean;
  chart?: string;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/**
 * Registers `planfirst simulate`: replays the operator's own Claude Code / Codex logs (or a
 * gateway's exported request log, or a generic trace) through the real ladder and ledger and
 * prints what each routing id would have served, refused and spent.
 */
export function registerSimulateCommand(program: Command, context: CliContext): void {
  program
    .command("simulate")
    .description(
      "replay your own Claude Code and Codex logs through the ladder: what the plan would have served, when it ran out, what each rung would have spent, and the all-metered cost",
    )
    .option(
      "-c, --config <file>",
      "config file (default ./planfirst.yaml, else ./planfirst.example.yaml)",
    )
    .option(
      "--from <path>",
      "trace file, directory or glob (repeatable): Claude Code and Codex logs, a gateway's request log export (GET /v1/requests?format=jsonl, planfirst log --json), or a generic trace; default ~/.claude/projects/**/*.jsonl and ~/.codex/sessions/**/rollout-*.jsonl",
      collect,
      [],
    )
    .option("--ids <list>", "routing ids to replay, comma-separated", collectList, [])
    .option(
      "--plan <spec>",
      "plan allowance per window, e.g. claude-max=200usd/5h,claude-max=1200usd/7d or codex=30mtok/5h (repeatable)",
      collect,
      [],
    )
    .option("--plan-allowance <spec>", "same as --plan", collect, [])
    .option(
      "--budget <spec>",
      "paid-rung budgets replacing the config's, e.g. cheap=5,premium=0 (repeatable)",
      collect,
      [],
    )
    .option(
      "--compare",
      "print settings side by side: the config, then one column per --budget and per extra --plan value",
    )
    .option("--json", "print one JSON document")
    .option("--chart <file.svg>", "write an SVG chart of requests per rung and the plan windows")
    .action(async (options: SimulateOptions) => {
      await runSimulate(context, options);
    });
}

async function runSimulate(context: CliContext, options: SimulateOptions): Promise<void> {
  const [{ createRoutingTable }, simulateModule] = await Promise.all([
    loadGateway(),
    import("../simulate/index"),
  ]);
  const {
    configPlanAllowances,
    discoverDefaultTraces,
    expandTracePath,
    parseBudgetOverride,
    parsePlanAllowances,
    readTrace,
    renderSimulationSummary,
    renderSvgChart,
    simulate,
    summarizeSimulation,
  } = simulateModule;
  const usage = (message: string, details: string[] = []) =>
    new CliError({ code: "usage", message, details });

  const location = locateConfig(options.config, context.io.cwd);
  const config = await loadConfigOrThrow(location);

  // Plan values: with --compare the first is the baseline and each later one is a column.
  const planValues = [...options.plan, ...options.planAllowance];
  const planSets = planValues.map((value) => {
    const parsed = parsePlanAllowances(value);
    if (!parsed.ok) throw usage("invalid --plan value", parsed.problems);
    return { value, allowances: parsed.allowances };
  });
  const budgetSets = options.budget.map((value) => {
    const parsed = parseBudgetOverride(value);
    if (!parsed.ok) throw usage("invalid --budget value", parsed.problems);
    return { value, rungBudgetUsd: parsed.rungBudgetUsd };
  });
  const givenPlans = options.compare
    ? (planSets[0]?.allowances ?? [])
    : planSets.flatMap((set) => set.allowances);
  // --plan wins over the config's planAllowances, which win over calibration from the trace.
  const baselinePlans = [...givenPlans, ...configPlanAllowances(config, givenPlans)];
  const scenarios = options.compare
    ? [
        { label: "config" },
        ...budgetSets.map((set) => ({
          label: `budget ${set.value}`,
          rungBudgetUsd: set.rungBudgetUsd,
        })),
        ...planSets
          .slice(1)
          .map((set) => ({ label: `plan ${set.value}`, allowances: set.allowances })),
      ]
    : [
        {
          label: budgetSets.length > 0 ? `budget ${options.budget.join(",")}` : "config",
          rungBudgetUsd: Object.assign({}, ...budgetSets.map((set) => set.rungBudgetUsd)),
        },
      ];

  const ids = options.ids.length > 0 ? options.ids : ["auto/subscription", "auto/thrifty"];
  // Every connection is simulated as enabled: no credential is read, none is needed.
  const table = createRoutingTable(config, {
    credentials: new Map(config.connections.map((connection) => [connection.id, null])),
    disabledConnections: new Map(),
    clientKeys: [],
    warnings: [],
  });
  for (const id of ids) {
    const resolution = table.resolve(id);
    if (!resolution.ok) throw usage(`--ids: ${resolution.message}`);
  }

  const files =
    options.from.length > 0
      ? options.from.flatMap((pattern) => expandTracePath(pattern, context.io.cwd))
      : discoverDefaultTraces(context.io.env.HOME ?? "");
  if (files.length === 0) {
    throw usage(
      options.from.length > 0
        ? `no trace file matches ${options.from.join(", ")}`
        : "no Claude Code or Codex logs under ~/.claude/projects or ~/.codex/sessions: pass --from FILE",
    );
  }
  const trace = await readTrace([...new Set(files)]);
  // Bad lines are shown relative to the working directory when they are under it.
  for (const bad of trace.badLines) {
    const shown = relative(context.io.cwd, bad.file);
    if (!shown.startsWith("..") && !isAbsolute(shown)) bad.file = shown;
  }
  const result = await simulate({
    config,
    table,
    trace,
    ids,
    allowances: baselinePlans,
    scenarios,
  });

  const missing = result.plans.filter((plan) => plan.allowances.length === 0);
  if (missing.length > 0) {
    // Guessing a plan's size would make every figure below a guess too; refuse instead.
    throw usage(
      "no allowance for a plan connection: say how much each window holds, in API-equivalent dollars or tokens",
      missing.map(
        (plan) =>
          `--plan ${plan.connectionId}=AMOUNTusd/${plan.windowsWithoutAllowance[0] ?? "5h"}  (${plan.provider}; windows: ${plan.windowsWithoutAllowance.join(", ") || "5h"})`,
      ),
    );
  }

  const summary = summarizeSimulation(result);
  if (options.chart !== undefined) {
    const scenario = result.scenarios[0]!;
    const replay =
      scenario.replays.find((candidate) => candidate.id.endsWith("thrifty")) ??
      scenario.replays[0]!;
    const path = resolve(context.io.cwd, options.chart);
    await writeFile(
      path,
      renderSvgChart(
        replay,
        `planfirst simulate: ${replay.id}, ${summary.requests.toLocaleString("en-US")} requests`,
      ),
    );
    if (!options.json) context.io.stderr.write(`chart written to ${options.chart}\n`);
  }
  if (options.json) {
    writeJson(context, { config: location.shown, ...summary });
    return;
  }
  writeOut(context, renderSimulationSummary(summary, context.color));
}
