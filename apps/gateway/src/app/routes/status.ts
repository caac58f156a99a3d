import { Hono } from "hono";
import type { AppContext, GatewayEnv } from "../app-context";
import { gatewayStatus } from "../status/gateway-status";
import { renderStatusPage } from "../status/status-page";

/** `GET /v1/status` (JSON, read by the CLI) and `GET /` (the HTML status page). */
export function statusRoutes(app: AppContext): Hono<GatewayEnv> {
  return new Hono<GatewayEnv>()
    .get("/v1/status", (c) => c.json(gatewayStatus(app)))
    .get("/", (c) => c.html(renderStatusPage(gatewayStatus(app), app.deps.now())));
}
