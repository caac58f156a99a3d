import { Hono } from "hono";
import type { AppContext, GatewayEnv } from "../app-context";
import { completionHandler } from "./completions";
import { COMPLETION_ROUTES } from "./route-table";

/** `POST /v1/messages`: the Anthropic messages API, stream and non-stream, any model id. */
export function messagesRoutes(app: AppContext): Hono<GatewayEnv> {
  const route = COMPLETION_ROUTES.messages;
  return new Hono<GatewayEnv>().post(route.path, completionHandler(app, route));
}
