import { randomBytes } from "node:crypto";
import { openAiToolCallId } from "./ids";

/** A tool call the fake Codex backend answers with instead of text. */
export interface CodexToolCall {
  /** `function` answers with a `function_call` item, `custom` with a `custom_tool_call` item. */
  kind: "function" | "custom";
  /** The call's JSON `arguments` (function) or raw `input` (custom), streamed in two deltas. */
  input: string;
}

/** What one answer of the fake Codex backend holds. */
interface CodexStreamOptions {
  model: string;
  /** The request's `tools`: a call goes only to a tool the request declared. */
  tools: unknown;
  /** A tool call to answer with when the request declared a tool of its kind; else text. */
  toolCall: CodexToolCall | null;
  /** The text answered when no tool is called. */
  text: string;
  usage: { inputTokens: number; outputTokens: number };
}

/** The frames of one Codex answer, in three parts so a quota event or a cut can go between. */
interface CodexStreamFrames {
  /** The `response.created` frame. */
  created: string;
  /** The output item's frames: added, deltas, dones, item done. */
  output: string[];
  /** The `response.completed` frame, carrying the output and the usage. */
  completed: string;
}

function newId(prefix: string): string {
  return `${prefix}${randomBytes(12).toString("hex")}`;
}

/** One SSE frame as the Codex backend writes it: the event name, then its JSON `data`. */
export function codexSse(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The name of the first tool of `kind` in a request's `tools`, if it declared one. */
function declaredTool(tools: unknown, kind: CodexToolCall["kind"]): string | null {
  if (!Array.isArray(tools)) return null;
  for (const tool of tools) {
    const record = tool as { type?: unknown; name?: unknown } | null;
    if (record?.type === kind && typeof record.name === "string") return record.name;
  }
  return null;
}

/**
 * The Responses SSE frames of one Codex backend answer, in the order the backend sends them:
 * `response.created`; then either a message item (`output_item.added`, `content_part.added`, an
 * `output_text.delta`, `output_text.done`, `content_part.done`, `output_item.done`) or a call
 * item to a tool the request declared (`output_item.added` with a `function_call` or
 * `custom_tool_call` item, two `function_call_arguments.delta` or `custom_tool_call_input.delta`
 * events and their `.done`, `output_item.done`); then `response.completed` with the output and
 * the usage.
 */
export function codexStreamFrames(options: CodexStreamOptions): CodexStreamFrames {
  const responseId = newId("resp_");
  const response = { id: responseId, object: "response", model: options.model };
  const created = codexSse("response.created", {
    type: "response.created",
    response: { ...response, status: "in_progress", output: [] },
  });
  const output: string[] = [];
  const call = options.toolCall;
  const name = call ? declaredTool(options.tools, call.kind) : null;
  const item = call && name ? callItem(call, name, output) : messageItem(options.text, output);
  output.push(
    codexSse("response.output_item.done", {
      type: "response.output_item.done",
      output_index: 0,
      item,
    }),
  );
  const completed = codexSse("response.completed", {
    type: "response.completed",
    response: {
      ...response,
      status: "completed",
      output: [item],
      usage: {
        input_tokens: options.usage.inputTokens,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: options.usage.outputTokens,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: options.usage.inputTokens + options.usage.outputTokens,
      },
    },
  });
  return { created, output, completed };
}

/** Writes a message item's frames into `out`; returns the completed item. */
function messageItem(text: string, out: string[]): Record<string, unknown> {
  const id = newId("msg_");
  const item = { type: "message", id, role: "assistant", status: "in_progress" };
  const at = { item_id: id, output_index: 0, content_index: 0 };
  const part = { type: "output_text", text, annotations: [] };
  out.push(
    codexSse("response.output_item.added", {
      type: "response.output_item.added",
      output_index: 0,
      item: { ...item, content: [] },
    }),
    codexSse("response.content_part.added", {
      type: "response.content_part.added",
      ...at,
      part: { ...part, text: "" },
    }),
    codexSse("response.output_text.delta", {
      type: "response.output_text.delta",
      ...at,
      delta: text,
    }),
    codexSse("response.output_text.done", { type: "response.output_text.done", ...at, text }),
    codexSse("response.content_part.done", { type: "response.content_part.done", ...at, part }),
  );
  return { ...item, status: "completed", content: [part] };
}

/** Writes a call item's frames into `out`; returns the completed item. */
function callItem(call: CodexToolCall, name: string, out: string[]): Record<string, unknown> {
  const custom = call.kind === "custom";
  const id = newId(custom ? "ctc_" : "fc_");
  const field = custom ? "input" : "arguments";
  const events = custom ? "response.custom_tool_call_input" : "response.function_call_arguments";
  const item = {
    id,
    type: custom ? "custom_tool_call" : "function_call",
    status: "in_progress",
    call_id: openAiToolCallId(),
    name,
    [field]: "",
  };
  const at = { item_id: id, output_index: 0 };
  const half = Math.ceil(call.input.length / 2);
  out.push(
    codexSse("response.output_item.added", {
      type: "response.output_item.added",
      output_index: 0,
      item,
    }),
    codexSse(`${events}.delta`, {
      type: `${events}.delta`,
      ...at,
      delta: call.input.slice(0, half),
    }),
    codexSse(`${events}.delta`, { type: `${events}.delta`, ...at, delta: call.input.slice(half) }),
    codexSse(`${events}.done`, { type: `${events}.done`, ...at, [field]: call.input }),
  );
  return { ...item, status: "completed", [field]: call.input };
}
