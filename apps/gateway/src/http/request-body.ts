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
    throw new GatewayError("the request body is not valid JSON", {
      code: "invalid_json",
      status: 400,
    });
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new GatewayError("the request body must be a JSON object", {
      code: "invalid_request",
      status: 400,
    });
  }
  return parsed as Record<string, unknown>;
}

function readIncoming(incoming: IncomingMessage, limitBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) {
        cleanup();
        incoming.resume();
        reject(tooLarge(limitBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(
        chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8"),
      );
    };
    const onError = (error: Error) => {
      cleanup();
      reject(
        new GatewayError("the request body could not be read", {
          code: "client_closed_request",
          status: 499,
          cause: error,
        }),
      );
    };
    const cleanup = () => {
      incoming.off("data", onData);
      incoming.off("end", onEnd);
      incoming.off("error", onError);
    };
    incoming.on("data", onData);
    incoming.on("end", onEnd);
    incoming.on("error", onError);
  });
}

function tooLarge(limitBytes: number): GatewayError {
  return new GatewayError(`the request body exceeds ${limitBytes} bytes`, {
    code: "request_too_large",
    status: 413,
    type: "request_too_large",
  });
}
