import type { RequestRecord } from "@planfirst/gateway";
import type { Colors } from "../context";
import { formatUsd } from "../format/money";

/**
 * One request of the request log on one line, for `planfirst log`: when it arrived (UTC), the
 * key, the model asked and where it went (rung, connection, model served) or `refused`, the
 * status and how it ended, the tokens, the cost, the latency, and after `via` every target
 * tried before the one that answered. Statuses of 400 and up are red, a stream that did not
 * end cleanly is yellow.
 */
export function renderRequestLine(record: RequestRecord, color: Colors): string {
  const where =
    record.rung === null
      ? color.dim("not served")
      : `${record.rung} ${record.connection} (${record.modelServed})`;
  const ending = `${record.status} ${record.outcome}`;
  const shownEnding =
    record.status >= 400
      ? color.red(ending)
      : record.outcome === "served"
        ? ending
        : color.yellow(ending);
  const tokens =
    record.inputTokens === null ? "" : `  in ${record.inputTokens} out ${record.outputTokens ?? 0}`;
  const before = record.attempts.filter(
    (attempt) => !(attempt.connection === record.connection && attempt.outcome === "ok"),
  );
  const via =
    before.length > 0
      ? color.dim(
          `  via ${before.map((a) => `${a.connection} ${a.outcome}${a.status === null ? "" : ` ${a.status}`}`).join(", ")}`,
        )
      : "";
  return `${record.at.slice(0, 19).replace("T", " ")}  ${record.keyId}  ${record.modelAsked ?? "(no model)"} → ${where}  ${shownEnding}${tokens}  ${formatUsd(record.costUsd)}  ${Math.round(record.latencyMs)} ms${via}`;
}
