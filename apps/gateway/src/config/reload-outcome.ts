import type { GatewayProblem } from "../errors";

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
