import type { Reply } from "@planfirst/fake-upstream";

// Scripted upstream streams in the providers' real wire formats (frame order and fields as the
// recorded fixtures in src/protocols/*/__fixtures__), for answers the fake's default text
// stream cannot give: tool calls with a chosen name and input.

const SSE = { "content-type": "text/event-stream; charset=utf-8" };

function anthropicEvent(type: string, data: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

function messageStart(model: string): string {
  return anthropicEvent("message_start", {
    message: {
      id: "msg_01FakeToolRoundTrip0000001",
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 40, output_tokens: 1 },
    },
  });
}

/** An Anthropic Messages stream that asks for one tool call. */
export function anthropicToolCall(
  model: string,
  name: string,
  input: Record<string, unknown>,
): Reply {
  const json = JSON.stringify(input);
  const text =
    messageStart(model) +
    anthropicEvent("content_block_start", {
      index: 0,
      content_block: { type: "tool_use", id: "toolu_01FakeRoundTrip000000001", name, input: {} },
    }) +
    anthropicEvent("content_block_delta", {
      index: 0,
      delta: { type: "input_json_delta", partial_json: json.slice(0, 5) },
    }) +
    anthropicEvent("content_block_delta", {
      index: 0,
      delta: { type: "input_json_delta", partial_json: json.slice(5) },
    }) +
    anthropicEvent("content_block_stop", { index: 0 }) +
    anthropicEvent("message_delta", {
      delta: { stop_reason: "tool_use", stop_sequence: null },
      usage: { output_tokens: 12 },
    }) +
    anthropicEvent("message_stop", {});
  return { headers: SSE, text };
}

/** An Anthropic Messages stream answering `answer`. */
export function anthropicText(model: string, answer: string): Reply {
  const text =
    messageStart(model) +
    anthropicEvent("content_block_start", { index: 0, content_block: { type: "text", text: "" } }) +
    anthropicEvent("content_block_delta", {
      index: 0,
      delta: { type: "text_delta", text: answer },
    }) +
    anthropicEvent("content_block_stop", { index: 0 }) +
    anthropicEvent("message_delta", {
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: { output_tokens: 5 },
    }) +
    anthropicEvent("message_stop", {});
  return { headers: SSE, text };
}

function chatChunk(model: string, delta: unknown, finish: string | null, usage?: unknown): string {
  const chunk = {
    id: "chatcmpl-FakeToolRoundTrip0001",
    object: "chat.completion.chunk",
    created: 1764583200,
    model,
    choices: usage ? [] : [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    usage: usage ?? null,
  };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

const CHAT_USAGE = { prompt_tokens: 40, completion_tokens: 12, total_tokens: 52 };

/** A chat completions stream that asks for one function call. */
export function chatToolCall(model: string, name: string, args: Record<string, unknown>): Reply {
  const json = JSON.stringify(args);
  const text =
    chatChunk(
      model,
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            index: 0,
            id: "call_FakeRoundTrip01",
            type: "function",
            function: { name, arguments: "" },
          },
        ],
      },
      null,
    ) +
    chatChunk(model, { tool_calls: [{ index: 0, function: { arguments: json } }] }, null) +
    chatChunk(model, {}, "tool_calls") +
    chatChunk(model, null, null, CHAT_USAGE) +
    "data: [DONE]\n\n";
  return { headers: SSE, text };
}

/** A chat completions stream answering `answer`. */
export function chatText(model: string, answer: string): Reply {
  const text =
    chatChunk(model, { role: "assistant", content: "" }, null) +
    chatChunk(model, { content: answer }, null) +
    chatChunk(model, {}, "stop") +
    chatChunk(model, null, null, CHAT_USAGE) +
    "data: [DONE]\n\n";
  return { headers: SSE, text };
}

/** Whether a request body carries a tool result (the client ran the tool and sent it back). */
export function carriesToolResult(body: unknown): boolean {
  const text = JSON.stringify(body ?? null);
  return text.includes('"tool_result"') || text.includes('"role":"tool"');
}
