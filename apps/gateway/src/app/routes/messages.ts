import { Hono } from "hono";
import type { AppContext, GatewayEnv } from "../app-context";
import { completionHandler } from "./completions";

/** `POST /v1/messages`: the Anthropic messages API, stream and non-stream, any model id. */
export function messagesRoutes(app: AppContext): Hono<GatewayEnv> {
  return new Hono<GatewayEnv>().post("/v1/messages", completionHandler(app, "anthropic"));
}
