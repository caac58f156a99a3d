import { responsesId } from "./ids";
import type { ReplyUsage } from "./types";

/** The Responses usage object: input tokens include the cached ones. */
function responsesUsage(usage: ReplyUsage): Record<string, unknown> {
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: usage.cachedInputTokens ?? 0 },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

/** A Responses `response` object with its settings echoed as OpenAI echoes the defaults. */
function responseObject(
  id: string,
  model: string,
  status: "in_progress" | "completed",
  output: unknown[],
  usage: Record<string, unknown> | null,
): Record<string, unknown> {
  return {
    id,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status,
    background: false,
    error: null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: null,
    model,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: false,
    temperature: 1.0,
    text: { format: { type: "text" }, verbosity: "medium" },
    tool_choice: "auto",
    tools: [],
    top_p: 1.0,
    truncation: "disabled",
    usage,
    user: null,
    metadata: {},
  };
}

function outputText(text: string): Record<string, unknown> {
  return { type: "output_text", annotations: [], logprobs: [], text };
}

function message(id: string, status: "in_progress" | "completed", content: unknown[]) {
  return { id, type: "message", status, content, role: "assistant" };
}

/** A whole (non-stream) Responses answer with one assistant message holding `content`. */
export function responsesBody(
  model: string,
  content: string,
  usage: ReplyUsage,
): Record<string, unknown> {
  const item = message(responsesId("msg_"), "completed", [outputText(content)]);
  return responseObject(responsesId("resp_"), model, "completed", [item], responsesUsage(usage));
}

/**
 * The events of a streamed Responses answer, in the real order and numbered by
 * `sequence_number`: created, in_progress, the message item and its text part opening, one
 * `response.output_text.delta` per chunk, then the text, part and item closing and
 * `response.completed` with the usage.
 */
export function responsesStreamFrames(
  model: string,
  chunks: readonly string[],
  usage: ReplyUsage,
): { head: string[]; content: string[]; tail: string[] } {
  const responseId = responsesId("resp_");
  const itemId = responsesId("msg_");
  const text = chunks.join("");
  let sequence = 0;
  const event = (type: string, fields: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...fields })}\n\n`;
  const inProgress = responseObject(responseId, model, "in_progress", [], null);
  const at = { item_id: itemId, output_index: 0, content_index: 0 };
  const done = message(itemId, "completed", [outputText(text)]);
  const head = [
    event("response.created", { response: inProgress }),
    event("response.in_progress", { response: inProgress }),
    event("response.output_item.added", {
      output_index: 0,
      item: message(itemId, "in_progress", []),
    }),
    event("response.content_part.added", { ...at, part: outputText("") }),
  ];
  const content = chunks.map((delta) =>
    event("response.output_text.delta", { ...at, delta, logprobs: [] }),
  );
  const tail = [
    event("response.output_text.done", { ...at, text, logprobs: [] }),
    event("response.content_part.done", { ...at, part: outputText(text) }),
    event("response.output_item.done", { output_index: 0, item: done }),
    event("response.completed", {
      response: responseObject(responseId, model, "completed", [done], responsesUsage(usage)),
    }),
  ];
  return { head, content, tail };
}
