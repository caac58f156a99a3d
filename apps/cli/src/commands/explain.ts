import type { Gateway, GatewayConfig, ModelExplanation } from "@planfirst/gateway";
import { type Command, InvalidArgumentError, Option } from "commander";
import { loadConfigOrThrow, locateConfig } from "../config-file";
import type { CliContext } from "../context";
import { CliError } from "../errors";
import { defaultGatewayUrl, getGatewayJson } from "../gateway-client";
import { loadGateway } from "../gateway-module";
import { writeJson, writeOut } from "../output";
import { renderExplanation } from "../render/explain-view";

/** Options of `planfirst explain`. */
interface ExplainOptions {
  config?: string;
  url?: string;
  apiKeyEnv: string;
  refresh: boolean;
  json?: boolean;
  session?: string;
  header: string[];
}

/** Registers `planfirst explain MODEL_ID [--config FILE | --url URL]`. */
export function registerExplainCommand(program: Command, context: CliContext): void {
  program
    .command("explain")
    .description(
      "show the ladder for a model id: every candidate and connection, its rung, quota, budget, and why it is in or out",
    )
    .argument(
      "<model>",
      "a configured model id or an auto id (auto/subscription, auto/coding:thrifty, …)",
    )
    .addOption(
      new Option(
        "-c, --config <file>",
        "explain from this config and the stored quota state (default ./planfirst.yaml, else ./planfirst.example.yaml)",
      ).conflicts("url"),
    )
    .addOption(
      new Option("-u, --url <url>", "explain from a running gateway (GET /v1/ladder)").conflicts(
        "config",
      ),
    )
    .option("--api-key-env <NAME>", "variable holding the gateway client key", "PLANFIRST_API_KEY")
    .option(
      "--no-refresh",
      "with a config: use the stored quota state only, do not poll the usage endpoints",
    )
    .option(
      "--session <hash>",
      "where this session would go and why: its hash, as the x-planfirst-session answer header shows it",
    )
    .option(
      "-H, --header <header>",
      'with --url: a session header sent as a request would send it ("x-session-affinity: job-7"); repeatable',
      collectHeader,
      [],
    )
    .option("--json", "print one JSON document (what /v1/ladder returns)")
    .action(async (model: string, options: ExplainOptions) => {
      await runExplain(context, model, options);
    });
}

async function runExplain(context: CliContext, model: string, options: ExplainOptions) {
  let explanation: ModelExplanation;
  let source: string;
  if (options.session !== undefined && !(await loadGateway()).isSessionHash(options.session)) {
    throw new CliError({
      code: "usage",
      message: `--session ${options.session} is not a session hash: 16 hex characters, as x-planfirst-session shows it`,
    });
  }
  if (options.url !== undefined) {
    const url = options.url || defaultGatewayUrl(context.io.env);
    const query = new URLSearchParams({ model });
    if (options.session !== undefined) query.set("session", options.session);
    explanation = (await getGatewayJson(
      {
        url,
        apiKey: context.io.env[options.apiKeyEnv],
        headers: Object.fromEntries(options.header.map(splitHeader)),
      },
      `/v1/ladder?${query}`,
    )) as ModelExplanation;
    source = `from the gateway at ${url}`;
  } else {
    if (options.header.length > 0) {
      throw new CliError({
        code: "usage",
        message:
          "--header needs --url (the gateway hashes a session for the caller's key); with a config, name the session by its hash with --session",
      });
    }
    const location = locateConfig(options.config, context.io.cwd);
    const config = await loadConfigOrThrow(location);
    const result = await explainFromConfig(
      config,
      model,
      context,
      options.refresh,
      options.session,
    );
    explanation = result.explanation;
    source = `from ${location.shown} and ${quotaReadPhrase(result.quotaRead)}`;
  }
  if (options.json) {
    writeJson(context, explanation);
    return;
  }
  writeOut(
    context,
    renderExplanation(explanation, { nowMs: context.io.now(), color: context.color, source }),
  );
}

/** Commander parser of `--header "name: value"`: appends it to `previous`; a bad one is a usage error. */
function collectHeader(value: string, previous: string[]): string[] {
  if (!/^[A-Za-z0-9_-]+\s*:\s*\S/.test(value)) {
    throw new InvalidArgumentError('must be "name: value"');
  }
  return [...previous, value];
}

function splitHeader(header: string): [string, string] {
  const colon = header.indexOf(":");
  return [header.slice(0, colon).trim().toLowerCase(), header.slice(colon + 1).trim()];
}

/** What the quota read before an explain found, per connection with a usage endpoint. */
interface QuotaReadSummary {
  refreshed: string[];
  failed: string[];
  skipped: string[];
}

function summarizeQuotaRead(
  outcomes: Awaited<ReturnType<Gateway["refreshUsage"]>>,
): QuotaReadSummary {
  const summary: QuotaReadSummary = { refreshed: [], failed: [], skipped: [] };
  for (const outcome of outcomes) summary[outcome.status].push(outcome.connectionId);
  return summary;
}

function quotaReadPhrase(read: QuotaReadSummary | null): string {
  if (read === null) return "the stored quota state";
  const parts = [`${read.refreshed.length} refreshed`];
  if (read.failed.length > 0) parts.push(`poll failed: ${read.failed.join(", ")}`);
  if (read.skipped.length > 0) parts.push(`not polled (cooling down): ${read.skipped.join(", ")}`);
  return `a quota read of the usage endpoints (${parts.join("; ")})`;
}

/**
 * Builds the gateway's parts from `config` (its store holds the quota and session pins a running
 * gateway last saw), reads the usage endpoints of connections whose reading is missing, expired or past its
 * reset (unless `refresh` is false), and explains `model` as the operator sees it: every
 * connection, any client key.
 */
async function explainFromConfig(
  config: GatewayConfig,
  model: string,
  context: CliContext,
  refresh: boolean,
  session: string | undefined,
): Promise<{ explanation: ModelExplanation; quotaRead: QuotaReadSummary | null }> {
  const { createGateway, createLogger, explainModel, explainSourceOf, GatewayError } =
    await loadGateway();
  // Client keys gate callers, not routing; the operator's view needs none of them set.
  const gateway = createGateway({
    config: { ...config, server: { ...config.server, apiKeys: [] } },
    env: context.io.env,
    now: context.io.now,
    logger: createLogger({ level: "silent" }),
    pollUsage: false,
    usagePollJitterMs: 0,
  });
  try {
    await gateway.ready();
    const explain = () => explainModel(explainSourceOf(gateway.context), model, undefined, session);
    // An unknown id fails here, before any usage endpoint is read.
    let explanation = explain();
    const quotaRead = refresh ? summarizeQuotaRead(await gateway.refreshUsage()) : null;
    if (quotaRead) explanation = explain();
    return { explanation, quotaRead };
  } catch (error) {
    if (
      GatewayError.isInstance(error) &&
      (error.code === "model_not_found" || error.code === "unknown_category")
    ) {
      const categories = error.details.categories;
      throw new CliError({
        code: "model_unknown",
        message: error.message,
        details: Array.isArray(categories) ? [`defined categories: ${categories.join(", ")}`] : [],
      });
    }
    throw error;
  } finally {
    await gateway.close();
  }
}
