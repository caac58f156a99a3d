// The load of the gateway benchmark's request rows (run.ts) and of bench:compare (compare.ts):
// chat completions POSTed by autocannon, every one naming the same session.
// autocannon ships no type declarations.
// @ts-expect-error no types
import autocannon from "autocannon";

/** What autocannon reports of a run: the figures the benchmarks read. */
export interface LoadResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}

/** A chat completion request for `model`: one short user message, 64 tokens at most. */
export function chatRequestBody(model: string, stream: boolean): string {
  return JSON.stringify({
    model,
    stream,
    max_tokens: 64,
    messages: [{ role: "user", content: "Say ok." }],
  });
}

/**
 * POSTs `body` to `url` on `connections` connections, for `duration` seconds or `amount`
 * requests. Every request carries `x-session-affinity: bench-conversation` (one conversation per
 * run), so a gateway looks its session up and finds it pinned, as in a client's session.
 */
export function loadChat(
  url: string,
  body: string,
  connections: number,
  limit: { duration: number } | { amount: number },
): Promise<LoadResult> {
  return autocannon({
    url,
    method: "POST",
    connections,
    headers: { "content-type": "application/json", "x-session-affinity": "bench-conversation" },
    body,
    ...limit,
  });
}
