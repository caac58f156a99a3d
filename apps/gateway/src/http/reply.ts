/** A whole answer: status, headers and a body already serialised. */
export interface BodyReply {
  readonly kind: "body";
  readonly status: number;
  /** Header names in lower case. */
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** Client text of a committed stream, produced as the upstream sends. */
export interface ClientStreamSource {
  /** The client bytes produced before the stream was committed (never empty). */
  readonly first: string;
  /**
   * The next client text ("" when an upstream chunk produced none). `done` is true once the
   * stream has ended, its tail (clean end or explicit error frame) included in `text` and its
   * spend settled. Never rejects.
   */
  next(): Promise<{ text: string; done: boolean }>;
  /** The client went away: stops the upstream and settles what was used. */
  cancel(): void;
}

/** A committed SSE stream. */
export interface StreamReply {
  readonly kind: "stream";
  readonly status: number;
  /** Header names in lower case. */
  readonly headers: Record<string, string>;
  readonly source: ClientStreamSource;
}

/**
 * What the dispatcher answers, independent of the transport: written straight to Node's
 * response when served by `@hono/node-server`, else turned into a web `Response`.
 */
export type GatewayReply = BodyReply | StreamReply;

const encoder = new TextEncoder();

/** The reply as a web `Response` (the path of `app.request()` and non-Node runtimes). */
export function replyToResponse(reply: GatewayReply): Response {
  if (reply.kind === "body") {
    return new Response(reply.body, { status: reply.status, headers: reply.headers });
  }
  const { source } = reply;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(source.first));
    },
    async pull(controller) {
      const { text, done } = await source.next();
      if (text) controller.enqueue(encoder.encode(text));
      if (done) controller.close();
    },
    cancel() {
      source.cancel();
    },
  });
  return new Response(body, { status: reply.status, headers: reply.headers });
}
