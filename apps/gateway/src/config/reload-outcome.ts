import { isDeepStrictEqual } from "node:util";
import { ConfigError, type GatewayProblem } from "../errors";
import type { GatewayConfig } from "./schema";

/** Connection ids a reload added, removed or changed (any field of their entry), config order. */
export interface ConnectionChanges {
  added: string[];
  removed: string[];
  changed: string[];
}

/**
 * What one reload did, as a JSON-safe value (`POST /v1/admin/reload` answers it, `planfirst
 * reload` prints it). `generation` counts configurations served since start (1 = the first).
 */
export type ReloadOutcome =
  | {
      reloaded: true;
      generation: number;
      /** The file re-read; null for a configuration handed over in code. */
      file: string | null;
      connections: ConnectionChanges;
      /** The new configuration's warnings (connections disabled because a variable is unset). */
      warnings: readonly string[];
    }
  | {
      reloaded: false;
      /** The generation still serving: nothing changed. */
      generation: number;
      file: string | null;
      /** What was refused, naming the file. */
      message: string;
      /** Every problem found: its path in the document and the reason. */
      problems: GatewayProblem[];
    };

/**
 * The headline and problems of a failed reload: a `ConfigError`'s first line (its problems are
 * listed apart), or any other error's message as the one problem, so a reload never rejects.
 */
export function whatFailed(error: unknown): [message: string, problems: GatewayProblem[]] {
  if (ConfigError.isInstance(error)) {
    return [error.message.split("\n", 1)[0] ?? error.message, error.problems];
  }
  const message = error instanceof Error ? error.message : String(error);
  return ["the configuration could not be applied", [{ path: "", message }]];
}

/** Connections the next config adds, removes or changes (any field), each in config order. */
export function connectionChanges(running: GatewayConfig, next: GatewayConfig): ConnectionChanges {
  const before = new Map(running.connections.map((connection) => [connection.id, connection]));
  const after = new Set(next.connections.map((connection) => connection.id));
  const changes: ConnectionChanges = { added: [], removed: [], changed: [] };
  for (const connection of next.connections) {
    const was = before.get(connection.id);
    if (!was) changes.added.push(connection.id);
    else if (!isDeepStrictEqual(was, connection)) changes.changed.push(connection.id);
  }
  for (const id of before.keys()) if (!after.has(id)) changes.removed.push(id);
  return changes;
}
