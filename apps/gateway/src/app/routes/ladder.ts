import { Hono } from "hono";
import { GatewayError } from "../../errors";
import { explainModel, explainSourceOf } from "../../routing/explain-model";
import type { AppContext, GatewayEnv } from "../app-context";

/** `GET /v1/ladder?model=ID`: `explainModel` for that id against live state, as the caller's key sees it. */
export function ladderRoutes(app: AppContext): Hono<GatewayEnv> {
  return new Hono<GatewayEnv>().get("/v1/ladder", (c) => {
    const model = c.req.query("model");
    if (!model) {
      throw new GatewayError({
        message: "query parameter model is required, e.g. /v1/ladder?model=auto/thrifty",
        code: "missing_model",
      });
    }
    return c.json(explainModel(explainSourceOf(app), model, c.var.client));
  });
}
