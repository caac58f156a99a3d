import type { RequestRecord } from "@planfirst/gateway";
import { type Command, InvalidArgumentError } from "commander";
import type { CliContext } from "../context";
import { CliError } from "../errors";
import { EXIT_CODES } from "../exit-codes";
import { defaultGatewayUrl, getGatewayJson } from "../gateway-client";
import { parseSeconds } from "../parse-option";
import { renderRequestLine } from "../render/request-line";
import { repeatUntilStopped } from "../repeat-until-stopped";

/** Options of `planfirst log`. */
interface LogOptions {
  url?: string;
  apiKeyEnv: string;
  follow?: boolean;
  interval: number;
  json?: boolean;
  limit: number;
  key?: string;
  model?: string;
  rung?: string;
  status?: string;
  since?: string;
  until?: string;
}

/** Records asked for per look while following: more than a busy gateway ends between looks. */
const FOLLOW_PAGE = 1_000;
/** Request ids remembered while following, so a record is printed once. */
const FOLLOW_MEMORY = 10_000;

/** Registers `planfirst log [--follow] [--json]` and its filters. */
export function registerLogCommand(program: Command, context: CliContext): void {
  program
    .command("log")
    .description(
      "a running gateway's request log, oldest first: key, model asked, the rung, connection and model that served it, status, tokens, cost, latency, and the targets tried before",
    )
    .option(
      "-u, --url <url>",
      "gateway base URL (default PLANFIRST_URL, else http://127.0.0.1:4141)",
    )
    .option("--api-key-env <NAME>", "variable holding the gateway client key", "PLANFIRST_API_KEY")
    .option("-f, --follow", "keep printing requests as they end, until Ctrl-C")
    .option("-i, --interval <seconds>", "seconds between looks with --follow", parseSeconds, 2)
    .option("--json", "print one JSON record per line (the format `simulate --from` reads)")
    .option("-n, --limit <count>", "the newest COUNT requests (1 to 1000)", parseLimit, 20)
    .option("--key <id>", "only requests of this client key id")
    .option("--model <id>", "only requests that asked for or were served by this model")
    .option("--rung <rung>", "only requests served on this rung")
    .option("--status <code>", "only this HTTP status (429) or class (4xx)")
    .option("--since <time>", "only requests that arrived at or after (ISO-8601 or epoch ms)")
    .option("--until <time>", "only requests that arrived before (ISO-8601 or epoch ms)")
    .action(async (options: LogOptions) => {
      await runLog(context, options);
    });
}

function parseLimit(value: string): number {
  const limit = Number(value);
  if (!/^\d+$/.test(value) || limit < 1 || limit > 1_000) {
    throw new InvalidArgumentError("must be a whole number from 1 to 1000");
  }
  return limit;
}

/** The gateway's answer to `GET /v1/requests`. */
interface RequestList {
  enabled: boolean;
  data: RequestRecord[];
}

async function runLog(context: CliContext, options: LogOptions): Promise<void> {
  const url = options.url || defaultGatewayUrl(context.io.env);
  const target = { url, apiKey: context.io.env[options.apiKeyEnv] };
  const filters = new URLSearchParams();
  for (const name of ["key", "model", "rung", "status", "since", "until"] as const) {
    const value = options[name];
    if (value) filters.set(name, value);
  }
  const read = async (limit: number): Promise<RequestRecord[]> => {
    const query = new URLSearchParams(filters);
    query.set("limit", String(limit));
    const list = (await getGatewayJson(target, `/v1/requests?${query}`)) as RequestList;
    if (list.enabled === false) {
      throw new CliError({
        code: "gateway_error",
        message: `the request log of the gateway at ${url} is off`,
        details: ["set server.requestLog.enabled: true in its config"],
      });
    }
    return list.data;
  };
  const print = (record: RequestRecord) => {
    context.io.stdout.write(
      `${options.json ? JSON.stringify(record) : renderRequestLine(record, context.color)}\n`,
    );
  };
  const seen = new Set<string>();
  const remember = (records: readonly RequestRecord[]) => {
    for (const record of records) seen.add(record.requestId);
    // Oldest ids go first: a Set iterates in insertion order.
    for (const id of seen) {
      if (seen.size <= FOLLOW_MEMORY) break;
      seen.delete(id);
    }
  };
  // Following remembers a whole page, so older records never show up later as new ones.
  const newest = await read(options.follow ? Math.max(FOLLOW_PAGE, options.limit) : options.limit);
  for (const record of newest.slice(0, options.limit).reverse()) print(record);
  if (!options.follow) return;
  remember(newest);
  // A gateway that stops answering is reported on each look, and following goes on.
  await repeatUntilStopped(context, options.interval, false, async () => {
    const fresh = (await read(FOLLOW_PAGE)).filter((record) => !seen.has(record.requestId));
    fresh.reverse();
    for (const record of fresh) print(record);
    remember(fresh);
  });
  context.exitCode = EXIT_CODES.ok;
}
