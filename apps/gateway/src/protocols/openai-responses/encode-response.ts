import type { Encoded, EncodeResponseOptions } from "../codec";
import type { IrRequest, IrResponse } from "../ir";
import type { Json } from "../ir/guards";
import { finishToResponses } from "./finish-reason";
import { usageToResponses } from "./openai-responses-api";

/** Responses id for an upstream id, so one answer keeps one id: `msg_abc` → `resp_abc`. */
export function responsesId(upstreamId: string | undefined): string {
  const raw = upstreamId && upstreamId !== "" ? upstreamId : "planfirst";
  return raw.startsWith("resp_") ? raw : `resp_${raw.replace(/^(chatcmpl-|msg_)/, "")}`;
}

/** A deterministic output item id: `<prefix>_<response id body>_<output index>`. */
export function itemId(
  prefix: "msg" | "fc" | "ctc" | "rs",
  responseId: string,
  outputIndex: number,
): string {
  return `${prefix}_${responseId.replace(/^resp_/, "")}_${outputIndex}`;
}

/** The response object's fixed fields, echoing the client's settings where it sent them. */
export function responseEnvelope(id: string, options: EncodeResponseOptions, status: string): Json {
  const request: IrRequest | undefined = options.request;
  return {
    id,
    object: "response",
    created_at: Math.floor(options.nowMs / 1000),
    status,
    error: null,
    incomplete_details: null,
    instructions:
      request && request.system.length > 0 ? request.system.map((p) => p.text).join("\n\n") : null,
    max_output_tokens: request?.maxOutputTokens ?? null,
    model: options.model,
    output: [],
    parallel_tool_calls: request?.parallelToolCalls ?? true,
    previous_response_id: null,
    store: request?.store ?? false,
    tool_choice: "auto",
    tools: [],
    usage: null,
    metadata: request?.metadata ?? {},
  };
}

/**
 * Writes a Responses API answer for a hub answer. What came from a Responses server (an answer
 * collected from its stream) keeps that server's own ids for calls and reasoning, so the client
 * can hand the items back to it. Reasoning is written only when it carries a Responses server's
 * encrypted content: reasoning from another protocol is not, since a reasoning item without that
 * content would be refused when the client (Codex sends its reasoning items back) reaches a
 * Responses upstream on a later turn.
 */
export function encodeResponsesResponse(
  ir: IrResponse,
  options: EncodeResponseOptions,
): Encoded<Json> {
  const id = responsesId(ir.id);
  const output: Json[] = [];
  const dropped: string[] = [];
  for (const part of ir.content) {
    const index = output.length;
    if (part.type === "text") {
      output.push({
        id: itemId("msg", id, index),
        type: "message",
        status: "completed",
        role: "assistant",
        content: [{ type: "output_text", text: part.text, annotations: [] }],
      });
    } else if (part.type === "tool_call") {
      output.push(
        part.kind === "custom"
          ? {
              id: part.itemId ?? itemId("ctc", id, index),
              type: "custom_tool_call",
              status: "completed",
              call_id: part.id,
              name: part.name,
              input: part.arguments,
            }
          : {
              id: part.itemId ?? itemId("fc", id, index),
              type: "function_call",
              status: "completed",
              call_id: part.id,
              name: part.name,
              arguments: part.arguments,
            },
      );
    } else if (part.encryptedContent !== undefined) {
      output.push({
        id: part.id ?? itemId("rs", id, index),
        type: "reasoning",
        summary: part.text === "" ? [] : [{ type: "summary_text", text: part.text }],
        encrypted_content: part.encryptedContent,
      });
    } else dropped.push("reasoning");
  }
  const finish = finishToResponses(ir.finishReason);
  const body: Json = {
    ...responseEnvelope(id, options, finish.status),
    incomplete_details: finish.incompleteDetails,
    output,
    usage: ir.usage ? usageToResponses(ir.usage) : null,
  };
  return { body, dropped: [...new Set(dropped)] };
}
