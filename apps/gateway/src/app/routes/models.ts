import { ADVERTISED_AUTO_IDS } from "@planfirst/subscription-ladder";
import { Hono } from "hono";
import type { AppContext, GatewayEnv } from "../app-context";

/**
 * `GET /v1/models`: the configured concrete models and the auto ids (`auto/subscription`,
 * `auto/thrifty`, and per category `auto/<category>:subscription|thrifty`), OpenAI list shape.
 */
export function modelsRoutes(app: AppContext): Hono<GatewayEnv> {
  const created = Math.floor(app.deps.now() / 1000);
  const ids = [
    ...ADVERTISED_AUTO_IDS,
    ...app.table.categories.flatMap((category) => [
      `auto/${category}:subscription`,
      `auto/${category}:thrifty`,
    ]),
    ...app.table.models,
  ];
  const body = JSON.stringify({
    object: "list",
    data: ids.map((id) => ({
      id,
      object: "model",
      created,
      owned_by: id.startsWith("auto/") ? "planfirst" : ownerOf(app, id),
      // Anthropic's list shape, for clients that read it.
      type: "model",
      display_name: id,
    })),
  });
  return new Hono<GatewayEnv>().get("/v1/models", (c) =>
    c.body(body, 200, { "content-type": "application/json" }),
  );
}

function ownerOf(app: AppContext, model: string): string {
  for (const connection of app.table.connections.values()) {
    if (connection.config.models.includes(model)) return connection.config.provider;
  }
  return "planfirst";
}
