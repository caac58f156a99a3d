import { isDeepStrictEqual } from "node:util";
import type { GatewayProblem } from "../errors";
import type { GatewayConfig } from "./schema";

/**
 * The settings a running gateway reads once and cannot change without a restart: where the
 * server listens and how its sockets time out (the listener is built with them), the request
 * log's (its queue and store are kept across reloads), and every storage setting (the stores
 * are opened with them, and everything kept across a reload lives in them).
 */
export const RESTART_ONLY_SETTINGS: readonly string[] = [
  "server.host",
  "server.port",
  "server.headersTimeoutMs",
  "server.requestTimeoutMs",
  "server.requestLog.enabled",
  "server.requestLog.maxRecords",
  "server.requestLog.maxAgeDays",
  "storage.driver",
  "storage.path",
  "storage.url",
  "storage.keyPrefix",
  "storage.journalPath",
  "storage.spendMaxAgeDays",
];

/**
 * One problem per restart-only setting whose value differs between the running config and the
 * next one, in {@link RESTART_ONLY_SETTINGS} order. Values are never shown: a storage URL may
 * carry a password.
 */
export function restartOnlyChanges(running: GatewayConfig, next: GatewayConfig): GatewayProblem[] {
  const problems: GatewayProblem[] = [];
  for (const path of RESTART_ONLY_SETTINGS) {
    if (isDeepStrictEqual(valueAt(running, path), valueAt(next, path))) continue;
    problems.push({
      path,
      message: "changes need a restart; the running gateway keeps its current value",
    });
  }
  return problems;
}

function valueAt(config: GatewayConfig, path: string): unknown {
  let value: unknown = config;
  for (const key of path.split(".")) value = (value as Record<string, unknown> | undefined)?.[key];
  return value;
}
