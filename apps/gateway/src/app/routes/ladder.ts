import { Hono } from "hono";
import { GatewayError } from "../../errors";
import { isAdmin } from "../../routing/client-identity";
import { explanationForClient } from "../../routing/explain-for-client";
import { explainModel, explainSourceOf } from "../../routing/explain-model";
import { isSessionHash, pickSessionHeaders, sessionKeyOf } from "../../routing/session-key";
import { keyRungSpendUsd } from "../../status/key-spend";
import type { AppContext, GatewayEnv } from "../app-context";

/**
 * `GET /v1/ladder?model=ID[&session=HASH]`: `explainModel` for that id against live state, as
 * the caller's key sees it: only the connections it may use, and for a client key its own spend
 * on each paid rung (see `explanationForClient`). A session is named the way a request names it
 * (its session headers, hashed for the caller's key) or by `session`, the hash
 * `x-planfirst-session` showed; the explanation then says where that session would go and why.
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
    const client = c.var.client;
    const explanation = explainModel(explainSourceOf(app), model, client, session);
    if (isAdmin(client)) return c.json(explanation);
    return c.json(
      explanationForClient(explanation, client, await keyRungSpendUsd(app.deps, client.id)),
    );
  });
}
