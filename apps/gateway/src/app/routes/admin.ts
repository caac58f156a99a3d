import { Hono } from "hono";
import { GatewayError } from "../../errors";
import type { AppContext, GatewayEnv } from "../app-context";
import { requireAdmin } from "../auth/require-admin";

/**
 * Operator actions under `/v1/admin/`, for an admin key only (`requireAdmin`):
 * `POST /v1/admin/reload` re-reads the config file and answers what changed (the
 * `ReloadOutcome`); a file that is invalid, or that changes a restart-only setting, is
 * `422 config_reload_refused` with every problem's path and reason, and the gateway keeps
 * serving the configuration it had.
 */
export function adminRoutes(app: AppContext): Hono<GatewayEnv> {
  return new Hono<GatewayEnv>().post("/v1/admin/reload", async (c) => {
    requireAdmin(app, c.var.client);
    const reload = app.deps.reload;
    if (!reload) {
      throw new GatewayError({
        code: "config_reload_refused",
        message: "this gateway was not started from a config file: there is nothing to re-read",
        details: { problems: [] },
      });
    }
    const outcome = await reload();
    if (!outcome.reloaded) {
      throw new GatewayError({
        code: "config_reload_refused",
        message: outcome.message,
        details: { generation: outcome.generation, problems: outcome.problems },
      });
    }
    return c.json(outcome);
  });
}
