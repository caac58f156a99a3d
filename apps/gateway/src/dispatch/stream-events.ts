import { StringDecoder } from "node:string_decoder";
import type { ChunkReader, UpstreamResponse } from "../upstream";

/** Longest frame kept while waiting for its end; a longer one is not an event we watch. */
const MAX_PENDING = 64 * 1024;

/**
 * `response` with its body chunks also scanned for the SSE events named in `names`: each
 * complete `event: <name>` frame's `data` is parsed as JSON and handed to `onEvent`. The chunks
 * reach the caller unchanged and in order (the scan only reads them); a frame that is not JSON,
 * or an `onEvent` that throws, is ignored. For a provider's in-band quota events (Codex
 * `codex.rate_limits`) on a stream that is otherwise relayed byte for byte.
 */
export function watchStreamEvents(
  response: UpstreamResponse,
  names: readonly string[],
  onEvent: (event: string, data: unknown) => void,
): UpstreamResponse {
  const wanted = new Set(names);
  const decoder = new StringDecoder("utf8");
  let pending = "";

  const scan = (chunk: Uint8Array) => {
    pending += decoder.write(chunk).replace(/\r\n/g, "\n");
    let end = pending.indexOf("\n\n");
    while (end !== -1) {
      readFrame(pending.slice(0, end));
      pending = pending.slice(end + 2);
      end = pending.indexOf("\n\n");
    }
    if (pending.length > MAX_PENDING) pending = "";
  };

  const readFrame = (frame: string) => {
    let event: string | undefined;
    let data = "";
    for (const line of frame.split("\n")) {
      if (line.startsWith("event:")) event = line.slice(6).trim();
      else if (line.startsWith("data:")) data += line.slice(5).trimStart();
    }
    if (event === undefined || !wanted.has(event)) return;
    try {
      onEvent(event, JSON.parse(data));
    } catch {
      // Not a reading: the stream itself is the client's, whatever this frame held.
    }
  };

  return {
    status: response.status,
    headers: response.headers,
    chunks(): ChunkReader {
      const reader = response.chunks();
      return {
        async next() {
          const next = await reader.next();
          if (!next.done) scan(next.value);
          return next;
        },
      };
    },
    text: () => response.text(),
    json: () => response.json(),
    discard: () => response.discard(),
  };
}
