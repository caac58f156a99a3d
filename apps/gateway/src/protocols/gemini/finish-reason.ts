import type { IrFinishReason } from "../ir";

/**
 * Hub finish reason for a Gemini `finishReason`. Gemini ends a turn that calls functions with
 * `STOP`, so `calledTools` turns a natural end into `tool_calls`. Unknown reasons are `other`,
 * never a silent `stop`.
 */
export function finishFromGemini(reason: string | undefined, calledTools: boolean): IrFinishReason {
  switch (reason) {
    case undefined:
    case "STOP":
    case "FINISH_REASON_UNSPECIFIED":
      return calledTools ? "tool_calls" : "stop";
    case "MAX_TOKENS":
      return "length";
    case "SAFETY":
    case "RECITATION":
    case "BLOCKLIST":
    case "PROHIBITED_CONTENT":
    case "SPII":
    case "IMAGE_SAFETY":
    case "LANGUAGE":
      return "content_filter";
    default:
      return "other";
  }
}
