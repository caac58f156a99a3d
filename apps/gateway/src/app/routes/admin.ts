import { Hono } from "hono";
import { GatewayError } from "../../errors";
import type { AppContext, GatewayEnv } from "../app-context";
import { requireAdmin } from "../auth/require-admin";

/**
 * Operator actions under `/v1/admin/`, for an admin key only (`requireAdmin`; never over HTTP
 * on a gateway without client keys):
 * `POST /v1/admin/reload` re-reads the config file and answers what changed (the
 * `ReloadOutcome`); a file that is invalid, or that changes a restart-only setting, is
 * `422 config_reload_refused` with every problem's path and reason, and the gateway keeps
 * serving the configuration it had.
 */
export function adminRoutes(app: AppContext): Hono<GatewayEnv> {
  return new Hono<GatewayEnv>().post("/v1/admin/reload", async (c) => {
    // Over HTTP only with keys: a gateway without any answers anyone on its loopback address,
    // whose anonymous client may see everything but not change the configuration.
    if (app.verifier.open) {
      throw new GatewayError({
        code: "admin_key_required",
        message:
          "this gateway has no client keys: configure server.apiKeys to administer it over HTTP, or send it SIGHUP",
      });
    }
    requireAdmin(c.var.client);
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
