import type { UpstreamFailure } from "@planfirst/quota-cache";
import { bodyObject, type UpstreamAnswer } from "../connector";

/** What Kimi For Coding says to a client program it does not admit (quota-signals.md §15). */
const AGENTS_ONLY = "only available for coding agents";

/**
 * The meaning of a Kimi Code error the generic parser does not know: the 403
 * `access_terminated_error` "Kimi For Coding is currently only available for Coding Agents such
 * as …", sent when the client's User-Agent is not a coding agent Kimi recognises, is
 * `client_refused`: the plan and its key are fine, and the same connection serves Claude Code or
 * the Kimi CLI, so nothing is cooled and the request falls through. planfirst never presents
 * itself as another client to get past it. Null for anything else. Pure and total.
 */
export function classifyKimiFailure(answer: UpstreamAnswer): UpstreamFailure | null {
  if (answer.status !== 403) return null;
  const error = bodyObject(bodyObject(answer.body)?.error);
  const message = typeof error?.message === "string" ? error.message.toLowerCase() : "";
  if (error?.type !== "access_terminated_error" || !message.includes(AGENTS_ONLY)) return null;
  return {
    kind: "client_refused",
    retryAt: null,
    resetAt: null,
    code: "access_terminated_error",
    detail: "Kimi For Coding serves only the coding agents it recognises by User-Agent",
  };
}
