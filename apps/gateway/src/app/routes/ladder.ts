import { Hono } from "hono";
import { GatewayError } from "../../errors";
import { isAdmin } from "../../routing/client-identity";
import { explanationForClient } from "../../routing/explain-for-client";
import { explainModel, explainSourceOf } from "../../routing/explain-model";
import { keyRungSpendUsd } from "../../status/key-spend";
import type { AppContext, GatewayEnv } from "../app-context";

/**
 * `GET /v1/ladder?model=ID`: `explainModel` for that id against live state, as the caller's key
 * sees it: only the connections it may use, and for a client key its own spend on each paid
 * rung (see `explanationForClient`).
 */
export function ladderRoutes(app: AppContext): Hono<GatewayEnv> {
  return new Hono<GatewayEnv>().get("/v1/ladder", async (c) => {
    const model = c.req.query("model");
    if (!model) {
      throw new GatewayError({
        message: "query parameter model is required, e.g. /v1/ladder?model=auto/thrifty",
        code: "missing_model",
      });
    }
    const client = c.var.client;
    const explanation = explainModel(explainSourceOf(app), model, client);
    if (isAdmin(client)) return c.json(explanation);
    return c.json(
      explanationForClient(explanation, client, await keyRungSpendUsd(app.deps, client.id)),
    );
  });
}
