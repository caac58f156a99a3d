// The OpenAI chat payloads the benchmark's upstreams answer with: one whole completion, and the
// pieces of a chunk stream.

/** A whole chat completion of one token, with usage, as JSON text. */
export const WHOLE_COMPLETION = JSON.stringify({
  id: "chatcmpl-bench",
  object: "chat.completion",
  created: 1_796_000_000,
  model: "bench-model",
  choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
  usage: { prompt_tokens: 12, completion_tokens: 1, total_tokens: 13 },
});

/** The fields every chunk of a bench stream carries. */
export const CHUNK_BASE = {
  id: "chatcmpl-bench",
  object: "chat.completion.chunk",
  created: 1_796_000_000,
  model: "bench-model",
};

/** One SSE frame carrying `payload` as JSON. */
export const frame = (payload: unknown) => `data: ${JSON.stringify(payload)}\n\n`;
