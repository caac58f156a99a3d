import type { ServerResponse } from "node:http";
import { completionBody, streamFrames } from "./completions";

/** What every plan-provider fake is started with on the shared loopback server. */
export interface PlanFakeSetup {
  /** `http://127.0.0.1:{port}` of the shared server. */
  origin: string;
  /** Clock for token expiry and quota resets, epoch ms. */
  now: () => number;
  /** Life of issued access tokens, seconds. */
  accessTokenTtlSec: number;
}

/** One request to the plan fakes, as the shared server read it. */
export interface PlanRequest {
  method: string;
  path: string;
  /** Request headers, lower-case, without `authorization` and `cookie`. */
  headers: Record<string, string>;
  /** The parsed JSON or form body as a record, `{}` when there is none or it is no object. */
  record: Record<string, unknown>;
  /** The Authorization header: scheme (`raw` for a bare key) and value, null when none. */
  credential: { scheme: string | null; value: string | null };
  /** The token of a `Bearer` Authorization header, else null. */
  bearer: string | null;
  /** The clock, epoch seconds. */
  nowSec: number;
}

/**
 * One plan-provider fake's part of the shared server: answers `request` and resolves true when
 * the path is one of that fake's, resolves false (having written nothing) when it is not.
 */
export type PlanRoute = (request: PlanRequest, response: ServerResponse) => Promise<boolean>;

/** A JSON answer with its length and any extra headers. */
export function json(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(text)),
    ...headers,
  });
  response.end(text);
}

/** The 404 of a path no plan fake serves. */
export function noRoute(response: ServerResponse, path: string) {
  return json(response, 404, { error: { message: `No route for ${path}` } });
}

/**
 * An OpenAI chat completion answering "ok" (Copilot, z.ai and Kimi speak this format): a JSON
 * body, or, when the request set `stream: true`, an SSE stream with its usage chunk.
 */
export function chatCompletion(response: ServerResponse, record: Record<string, unknown>) {
  const model = typeof record.model === "string" ? record.model : "fake-model";
  const usage = { inputTokens: 12, outputTokens: 1 };
  if (record.stream !== true)
    return json(response, 200, completionBody("openai", model, "ok", usage));
  const frames = streamFrames("openai", model, ["ok"], usage, true);
  response.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
  });
  response.end([...frames.head, ...frames.content, ...frames.tail].join(""));
}
