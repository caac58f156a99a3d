import type { IncomingMessage } from "node:http";
import type { Context } from "hono";
import { GatewayError } from "../errors";

/**
 * Reads and parses the JSON request body once, refusing more than `limitBytes` (413). Reads the
 * Node request stream directly when served by `@hono/node-server` (no web-stream round trip).
 */
export async function readJsonBody(
  c: Context,
  limitBytes: number,
): Promise<Record<string, unknown>> {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (incoming && !incoming.readableEnded) return readNodeJsonBody(incoming, limitBytes);
  const declared = Number(
    incoming ? incoming.headers["content-length"] : c.req.header("content-length"),
  );
  if (Number.isFinite(declared) && declared > limitBytes) throw tooLarge(limitBytes);
  const text = await c.req.text();
  if (Buffer.byteLength(text) > limitBytes) throw tooLarge(limitBytes);
  return parseJsonObject(text);
}

/** `readJsonBody` straight from Node's request: the same limit, errors and parse. */
export async function readNodeJsonBody(
  incoming: IncomingMessage,
  limitBytes: number,
): Promise<Record<string, unknown>> {
  const declared = Number(incoming.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limitBytes) throw tooLarge(limitBytes);
  if (incoming.readableEnded) return parseJsonObject("");
  return parseJsonObject(await readIncoming(incoming, limitBytes));
}

function parseJsonObject(text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new GatewayError({ message: "the request body is not valid JSON", code: "invalid_json" });
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new GatewayError({
      message: "the request body must be a JSON object",
      code: "invalid_request",
    });
  }
  return parsed as Record<string, unknown>;
}

/** One body being read; the listeners are shared functions that find it on the request. */
interface BodyRead {
  readonly limitBytes: number;
  readonly chunks: Buffer[];
  size: number;
  resolve(text: string): void;
  reject(error: GatewayError): void;
}

const BODY_READ = Symbol("bodyRead");
type ReadingMessage = IncomingMessage & { [BODY_READ]?: BodyRead };

function readIncoming(incoming: ReadingMessage, limitBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    incoming[BODY_READ] = { limitBytes, chunks: [], size: 0, resolve, reject };
    incoming.on("data", onBodyData);
    incoming.on("end", onBodyEnd);
    incoming.on("error", onBodyError);
  });
}

function stopReading(incoming: ReadingMessage): BodyRead {
  const read = incoming[BODY_READ]!;
  incoming[BODY_READ] = undefined;
  incoming.off("data", onBodyData);
  incoming.off("end", onBodyEnd);
  incoming.off("error", onBodyError);
  return read;
}

function onBodyData(this: ReadingMessage, chunk: Buffer): void {
  const read = this[BODY_READ]!;
  read.size += chunk.length;
  if (read.size > read.limitBytes) {
    stopReading(this);
    this.resume();
    read.reject(tooLarge(read.limitBytes));
    return;
  }
  read.chunks.push(chunk);
}

function onBodyEnd(this: ReadingMessage): void {
  const { chunks, resolve } = stopReading(this);
  resolve(
    chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8"),
  );
}

function onBodyError(this: ReadingMessage, error: Error): void {
  stopReading(this).reject(
    new GatewayError({
      message: "the request body could not be read",
      code: "client_closed_request",
      cause: error,
    }),
  );
}

function tooLarge(limitBytes: number): GatewayError {
  return new GatewayError({
    message: `the request body exceeds ${limitBytes} bytes`,
    code: "request_too_large",
  });
}
