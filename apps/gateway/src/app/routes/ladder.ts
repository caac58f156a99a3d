import { Hono } from "hono";
import { GatewayError } from "../../errors";
import { explainModel, explainSourceOf } from "../../routing/explain-model";
import { isSessionHash, pickSessionHeaders, sessionKeyOf } from "../../routing/session-key";
import type { AppContext, GatewayEnv } from "../app-context";

/**
 * `GET /v1/ladder?model=ID[&session=HASH]`: `explainModel` for that id against live state, as
 * the caller's key sees it. A session is named the way a request names it (its session headers,
 * hashed for the caller's key) or by `session`, the hash `x-planfirst-session` showed; the
 * explanation then says where that session would go and why.
 */
export function ladderRoutes(app: AppContext): Hono<GatewayEnv> {
  return new Hono<GatewayEnv>().get("/v1/ladder", (c) => {
    const model = c.req.query("model");
    if (!model) {
      throw new GatewayError({
        message: "query parameter model is required, e.g. /v1/ladder?model=auto/thrifty",
        code: "missing_model",
      });
    }
    const named = c.req.query("session");
    if (named !== undefined && !isSessionHash(named)) {
      throw new GatewayError({
        message:
          "query parameter session must be a session hash: 16 hex characters, as x-planfirst-session shows it",
        code: "invalid_request",
        details: { param: "session" },
      });
    }
    const session =
      named ??
      sessionKeyOf({
        headers: pickSessionHeaders((name) => c.req.header(name)),
        body: {},
        clientId: c.var.client.id,
        opening: () => null,
      })?.hash;
    return c.json(explainModel(explainSourceOf(app), model, c.var.client, session));
  });
}
