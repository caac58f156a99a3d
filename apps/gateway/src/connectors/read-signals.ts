import {
  isSilentSuccess,
  type OverageObservation,
  type QuotaWindow,
  type ResponseSignalParser,
  type ResponseSignals,
  type UpstreamFailure,
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

/**
 * {@link answerReader} with the provider's own reading of its failures on top: for a non-2xx
 * answer, a failure `classify` names replaces the one `parse` found (z.ai's business codes,
 * Kimi's refusal of a client program); null keeps `parse`'s.
 */
export function answerReaderWith(
  parse: ResponseSignalParser,
  classify: (answer: UpstreamAnswer) => UpstreamFailure | null,
): (answer: UpstreamAnswer) => ResponseSignals {
  const read = answerReader(parse);
  return (answer) => {
    const signals = read(answer);
    const failure = answer.status >= 300 ? classify(answer) : null;
    if (failure) signals.failure = failure;
    return signals;
  };
}

/** A usage reading of `windows` and, when the payload gave any, its overage `evidence`. */
export function usageReading(
  windows: QuotaWindow[],
  evidence: OverageObservation | undefined,
): UsageReading {
  return evidence ? { windows, evidence } : { windows };
}
