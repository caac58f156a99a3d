import { Hono } from "hono";
import type { AppContext, GatewayEnv } from "../app-context";
import { completionHandler } from "./completions";
import { COMPLETION_ROUTES } from "./route-table";

/** `POST /v1/chat/completions`: the OpenAI chat API, stream and non-stream, any model id. */
export function chatCompletionsRoutes(app: AppContext): Hono<GatewayEnv> {
  const route = COMPLETION_ROUTES.chatCompletions;
  return new Hono<GatewayEnv>().post(route.path, completionHandler(app, route));
}
