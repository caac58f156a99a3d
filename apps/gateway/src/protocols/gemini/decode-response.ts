import type { IrResponse } from "../ir";
import { parseWire } from "../wire-parse";
import { finishFromGemini } from "./finish-reason";
import { geminiResponseSchema, unwrapCodeAssist, usageFromGemini } from "./gemini-api";

/**
 * Reads a non-stream Gemini answer (Code Assist `{response: {...}}` or a plain Gemini API body)
 * into the hub: the first candidate's thoughts as reasoning, its text, its function calls (ids
 * made up where Gemini sends none). A blocked prompt with no candidate is `content_filter`. See
 * {@link Codec.decodeResponse}.
 */
export function decodeGeminiResponse(body: unknown): IrResponse {
  const wire = parseWire(
    geminiResponseSchema,
    unwrapCodeAssist(body) ?? body,
    "upstream body is not a Gemini answer",
  );
  const candidate = wire.candidates?.[0];
  const content: IrResponse["content"] = [];
  let calls = 0;
  for (const part of candidate?.content?.parts ?? []) {
    if (part.functionCall) {
      content.push({
        type: "tool_call",
        kind: "function",
        id: part.functionCall.id ?? `call_planfirst_${calls}`,
        name: part.functionCall.name,
        arguments: JSON.stringify(part.functionCall.args ?? {}),
      });
      calls++;
      continue;
    }
    if (typeof part.text !== "string" || part.text === "") continue;
    const type = part.thought ? "reasoning" : "text";
    const last = content.at(-1);
    if (last && last.type === type) last.text += part.text;
    else content.push({ type, text: part.text });
  }
  const blocked = !candidate && wire.promptFeedback?.blockReason !== undefined;
  const out: IrResponse = {
    content,
    finishReason: blocked ? "content_filter" : finishFromGemini(candidate?.finishReason, calls > 0),
    usage: usageFromGemini(wire.usageMetadata),
  };
  if (wire.responseId !== undefined) out.id = wire.responseId;
  if (wire.modelVersion !== undefined) out.model = wire.modelVersion;
  return out;
}
