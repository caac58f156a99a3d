import type { IrRequest } from "./request";

/** Field names once each, in first-seen order. */
export function unique(fields: readonly string[]): string[] {
  return [...new Set(fields)];
}

/** The client field that carried earlier reasoning, by the client's protocol, for the dropped list. */
export function reasoningFieldName(source: IrRequest["source"]): string {
  return source === "anthropic-messages" ? "thinking" : "reasoning";
}
