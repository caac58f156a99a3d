import type { IncomingMessage, ServerResponse } from "node:http";
import type { JsonReply } from "./google-rpc";

/** A JSON answer as Google's APIs write one (`charset=UTF-8`), with its length. */
export function json(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    "content-type": "application/json; charset=UTF-8",
    "content-length": String(Buffer.byteLength(text)),
  });
  response.end(text);
}

/** Writes a {@link JsonReply} as {@link json} does. */
export function reply(response: ServerResponse, answer: JsonReply): void {
  json(response, answer.status, answer.body);
}

/** The request body: form fields, parsed JSON, else its text; undefined when empty. */
export async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  if (text === "") return undefined;
  if (String(request.headers["content-type"]).includes("application/x-www-form-urlencoded"))
    return Object.fromEntries(new URLSearchParams(text));
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** `value` when it is a plain object, else `{}`. */
export function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
