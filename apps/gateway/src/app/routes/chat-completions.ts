import { Hono } from "hono";
import type { AppContext, GatewayEnv } from "../app-context";
import { completionHandler } from "./completions";

/** `POST /v1/chat/completions`: the OpenAI chat API, stream and non-stream, any model id. */
export function chatCompletionsRoutes(app: AppContext): Hono<GatewayEnv> {
  return new Hono<GatewayEnv>().post("/v1/chat/completions", completionHandler(app, "openai"));
}
