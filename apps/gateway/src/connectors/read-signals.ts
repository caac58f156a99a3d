import {
  isSilentSuccess,
  type OverageObservation,
  type QuotaWindow,
  type ResponseSignalParser,
  type ResponseSignals,
} from "@planfirst/quota-cache";
import type { UpstreamAnswer, UsageReading } from "./connector";

/**
 * A connector's `readResponse` from one of quota-cache's family parsers: an answer that cannot
 * carry a quota signal (a success with no body and no header a parser reads, quota-cache
 * `isSilentSuccess`) is `{ windows: [] }` without a header copy; any other goes to `parse`.
 */
export function answerReader(
  parse: ResponseSignalParser,
): (answer: UpstreamAnswer) => ResponseSignals {
  return (answer) => (isSilentSuccess(answer) ? { windows: [] } : parse(answer));
}

/** A usage reading of `windows` and, when the payload gave any, its overage `evidence`. */
export function usageReading(
  windows: QuotaWindow[],
  evidence: OverageObservation | undefined,
): UsageReading {
  return evidence ? { windows, evidence } : { windows };
}
