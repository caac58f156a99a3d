import type { ServerResponse } from "node:http";
import { flatString } from "./flat-string";
import type { ClientStreamSource, GatewayReply } from "./reply";

/**
 * Writes a reply straight to Node's response, with no web `Response`, `Headers` or
 * `ReadableStream` in between. A body goes out in one write with its `content-length`; a stream
 * sends its headers with the first bytes, then each piece as the upstream sends it, waiting for
 * `drain` when the client reads slowly. A client that goes away cancels the stream.
 */
export function writeNodeReply(outgoing: ServerResponse, reply: GatewayReply): void {
  if (reply.kind === "body") {
    reply.headers["content-length"] = String(Buffer.byteLength(reply.body));
    outgoing.writeHead(reply.status, reply.headers);
    outgoing.end(reply.body);
    return;
  }
  outgoing.writeHead(reply.status, reply.headers);
  // Node keeps the header block it built for the stream's whole life, in ~50 pieces: one flat
  // copy instead (same text; it has not been written yet, and is written from this field).
  const built = outgoing as unknown as { _header: string | null };
  if (built._header) built._header = flatString(built._header);
  void pump(outgoing, reply.source);
}

async function pump(outgoing: ServerResponse, source: ClientStreamSource): Promise<void> {
  let gone = false;
  // An inline listener: under tsx a named one would also get its name set, once per stream.
  // `close` is emitted once, so `on` serves (without the wrapper `once` adds).
  outgoing.on("close", () => {
    if (outgoing.writableFinished) return;
    gone = true;
    source.cancel();
  });
  try {
    // Held for one turn of the event loop: a short upstream stream that has already arrived
    // whole leaves in one packet with its end instead of two.
    outgoing.cork();
    setImmediate(uncork, outgoing);
    let writable = outgoing.write(source.first);
    while (true) {
      if (!writable && !(await drained(outgoing))) return;
      const { text, done } = await source.next();
      if (gone || outgoing.destroyed) return;
      if (done) {
        if (text) outgoing.end(text);
        else outgoing.end();
        return;
      }
      if (text) writable = outgoing.write(text);
    }
  } catch (error) {
    // Nothing above should throw; if it does, the client must not see a clean end.
    source.cancel();
    outgoing.destroy(error as Error);
  }
}

function uncork(outgoing: ServerResponse): void {
  if (outgoing.writableCorked > 0) outgoing.uncork();
}

/** Resolves true on `drain`, false when the response closes first. */
function drained(outgoing: ServerResponse): Promise<boolean> {
  if (outgoing.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onDrain = () => {
      outgoing.off("close", onClose);
      resolve(true);
    };
    const onClose = () => {
      outgoing.off("drain", onDrain);
      resolve(false);
    };
    outgoing.once("drain", onDrain);
    outgoing.once("close", onClose);
  });
}
