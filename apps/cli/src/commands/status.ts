import type { GatewayStatus } from "@planfirst/gateway";
import type { Command } from "commander";
import type { CliContext, Colors } from "../context";
import { EXIT_CODES } from "../exit-codes";
import { defaultGatewayUrl, getGatewayJson } from "../gateway-client";
import { writeJson, writeOut } from "../output";
import { parseSeconds } from "../parse-option";
import { renderStatus } from "../render/status-view";
import { repeatUntilStopped } from "../repeat-until-stopped";

/** Options of `planfirst status`. */
interface StatusOptions {
  url?: string;
  apiKeyEnv: string;
  watch?: boolean;
  interval: number;
  json?: boolean;
}

/** Registers `planfirst status [--url URL] [--watch] [--interval S]`. */
export function registerStatusCommand(program: Command, context: CliContext): void {
  program
    .command("status")
    .description(
      "a running gateway's quota windows and resets, the pace of each plan window, spend against rung budgets, requests per rung in the last hour and where each routing id was last served",
    )
    .option(
      "-u, --url <url>",
      "gateway base URL (default PLANFIRST_URL, else http://127.0.0.1:4141)",
    )
    .option("--api-key-env <NAME>", "variable holding the gateway client key", "PLANFIRST_API_KEY")
    .option("-w, --watch", "redraw every --interval seconds until Ctrl-C")
    .option("-i, --interval <seconds>", "seconds between redraws with --watch", parseSeconds, 5)
    .option("--json", "print one JSON document (with --watch: one per line)")
    .action(async (options: StatusOptions) => {
      await runStatus(context, options);
    });
}

async function runStatus(context: CliContext, options: StatusOptions): Promise<void> {
  const url = options.url || defaultGatewayUrl(context.io.env);
  const target = { url, apiKey: context.io.env[options.apiKeyEnv] };
  const fetchStatus = async () => (await getGatewayJson(target, "/v1/status")) as GatewayStatus;
  if (!options.watch) {
    const status = await fetchStatus();
    if (options.json) writeJson(context, status);
    else
      writeOut(context, statusView(status, { nowMs: context.io.now(), color: context.color, url }));
    return;
  }
  await watch(context, options, url, fetchStatus);
}

// Redraws until SIGINT or SIGTERM, then exits 0. A gateway that stops answering is reported on
// each tick (the view keeps trying); the exit code is 3 only if it never answered at all.
async function watch(
  context: CliContext,
  options: StatusOptions,
  url: string,
  fetchStatus: () => Promise<GatewayStatus>,
): Promise<void> {
  let answered = false;
  const clear = context.io.stdout.isTTY && !options.json;
  await repeatUntilStopped(context, options.interval, true, async () => {
    const status = await fetchStatus();
    answered = true;
    if (options.json) {
      context.io.stdout.write(`${JSON.stringify(status)}\n`);
    } else {
      const view = statusView(status, { nowMs: context.io.now(), color: context.color, url });
      writeOut(
        context,
        `${clear ? "\u001b[2J\u001b[H" : ""}${view}\n${context.color.dim(`every ${options.interval}s, Ctrl-C to stop`)}`,
      );
    }
  });
  context.exitCode = answered ? EXIT_CODES.ok : EXIT_CODES.unreachable;
}

function statusView(
  status: GatewayStatus,
  options: { nowMs: number; color: Colors; url: string },
): string {
  return [renderStatus(status, options), ...paceAndServedLines(status, options.color)].join("\n");
}

/**
 * The lines `planfirst status` shows after the table, as the status page does: the rung,
 * connection and model that last served each routing id, and the pace of each plan window
 * (burn over the last hour against its reset). A gateway too old to report them adds nothing.
 */
function paceAndServedLines(status: GatewayStatus, color: Colors): string[] {
  const lines: string[] = [];
  const served = Object.entries(status.lastServed ?? {}).sort(([a], [b]) => a.localeCompare(b));
  if (served.length > 0) {
    lines.push("", color.bold("Last served"));
    for (const [id, record] of served) {
      lines.push(
        `  ${id} → ${record.rung} (${record.connection}, ${record.model}) at ${record.at.slice(11, 19)}`,
      );
    }
  }
  const pace: string[] = [];
  for (const connection of status.connections) {
    if (!connection.rungs.includes("subscription")) continue;
    for (const window of connection.quota?.windows ?? []) {
      if (!window.pace) continue;
      const text =
        window.pace.runsOutBeforeResetMs !== null && window.pace.runsOutBeforeResetMs > 0
          ? color.yellow(window.pace.summary)
          : window.pace.summary;
      pace.push(`  ${connection.id} ${window.windowId}: ${text}`);
    }
  }
  if (pace.length > 0) lines.push("", color.bold("Pace (last hour)"), ...pace);
  return lines;
}
