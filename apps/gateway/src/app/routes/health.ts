import { Hono } from "hono";
import type { AppContext, GatewayEnv } from "../app-context";
import { requireAdmin } from "../auth/require-admin";

/**
 * `GET /healthz` (liveness, no key needed) and `GET /metrics` (Prometheus text). The metrics
 * show every connection and every key's spend, so only an admin key may read them; a client key
 * gets `403 admin_key_required`.
 */
export function healthRoutes(app: AppContext): Hono<GatewayEnv> {
  return new Hono<GatewayEnv>()
    .get("/healthz", (c) => c.json({ status: "ok" }))
    .get("/metrics", (c) => {
      requireAdmin(c.var.client);
      return c.body(app.deps.metrics.render(), 200, {
        "content-type": "text/plain; version=0.0.4; charset=utf-8",
      });
    });
}
