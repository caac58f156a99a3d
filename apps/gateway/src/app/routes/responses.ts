import { Hono } from "hono";
import type { AppContext, GatewayEnv } from "../app-context";
import { completionHandler } from "./completions";
import { COMPLETION_ROUTES } from "./route-table";

/**
 * `POST /v1/responses` (the OpenAI Responses API, stream and non-stream: Codex CLI, the AI SDK's
 * default OpenAI model) and `POST /v1/responses/compact` (only a Responses upstream can serve it;
 * with none on the route it is a 400 that says why). `previous_response_id` reaches a Responses
 * upstream as sent; no other protocol holds the earlier response, so elsewhere it is a 400.
 */
export function responsesRoutes(app: AppContext): Hono<GatewayEnv> {
  const { responses, responsesCompact } = COMPLETION_ROUTES;
  return new Hono<GatewayEnv>()
    .post(responses.path, completionHandler(app, responses))
    .post(responsesCompact.path, completionHandler(app, responsesCompact));
}
