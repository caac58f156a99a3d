import { ADVERTISED_AUTO_IDS } from "@planfirst/subscription-ladder";
import { Hono } from "hono";
import type { AppContext, GatewayEnv } from "../app-context";
import {
  anthropicModelList,
  codexModelList,
  type ListedModel,
  type ModelListShape,
  modelListShape,
  openAiModelList,
} from "./model-lists";

/**
 * `GET /v1/models`: the configured concrete models and the auto ids (`auto/subscription`,
 * `auto/thrifty`, and per category `auto/<category>:subscription|thrifty`), in the shape the
 * caller reads (see `modelListShape`): OpenAI's, Anthropic's, or Codex's.
 */
export function modelsRoutes(app: AppContext): Hono<GatewayEnv> {
  const nowMs = app.deps.now();
  const ids = [
    ...ADVERTISED_AUTO_IDS,
    ...app.table.categories.flatMap((category) => [
      `auto/${category}:subscription`,
      `auto/${category}:thrifty`,
    ]),
    ...app.table.models,
  ];
  const models: ListedModel[] = ids.map((id) => ({
    id,
    ownedBy: id.startsWith("auto/") ? "planfirst" : ownerOf(app, id),
  }));
  const bodies: Readonly<Record<ModelListShape, string>> = {
    openai: openAiModelList(models, Math.floor(nowMs / 1000)),
    anthropic: anthropicModelList(models, new Date(nowMs).toISOString()),
    codex: codexModelList(),
  };
  return new Hono<GatewayEnv>().get("/v1/models", (c) => {
    const shape = modelListShape(
      (name) => c.req.query(name),
      (name) => c.req.header(name),
    );
    return c.body(bodies[shape], 200, { "content-type": "application/json" });
  });
}

function ownerOf(app: AppContext, model: string): string {
  for (const connection of app.table.connections.values()) {
    if (connection.config.models.includes(model)) return connection.config.provider;
  }
  return "planfirst";
}
