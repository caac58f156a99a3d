import { Hono } from "hono";
import type { AppContext, GatewayEnv } from "../app-context";

/** `GET /healthz` (liveness, no key needed) and `GET /metrics` (Prometheus text). */
export function healthRoutes(app: AppContext): Hono<GatewayEnv> {
  return new Hono<GatewayEnv>()
    .get("/healthz", (c) => c.json({ status: "ok" }))
    .get("/metrics", (c) =>
      c.body(app.deps.metrics.render(), 200, {
        "content-type": "text/plain; version=0.0.4; charset=utf-8",
      }),
    );
}
