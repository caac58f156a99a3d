import {
  type Catalog,
  connectionBillingCatalog,
  type ModelPrice,
  mergeCatalog,
  modelPriceKey,
  modelPrices,
} from "@planfirst/billing-catalog";
import {
  type ConnectionBillingVerdict,
  createConnectionClassifier,
} from "@planfirst/connection-billing";
import {
  assignRung,
  type LadderOptions,
  type LadderRung,
  parseAutoId,
  rungIndex,
} from "@planfirst/subscription-ladder";
import { createTierResolver, type TierResolver } from "@planfirst/tier-resolver";
import type { ConnectionConfig } from "../config/connection-schema";
import type { GatewayConfig } from "../config/schema";
import type { ResolvedSecrets } from "../config/secrets";

/** A configured connection with what start-up learned about it. */
export interface RoutedConnection {
  readonly config: ConnectionConfig;
  /** Position in the config file (the tie-breaker of every order). */
  readonly index: number;
  /** Credential read from the environment; null for keyless or disabled connections. */
  readonly credential: string | null;
  /** Why the connection is out of every pool (its credential is unset); null when enabled. */
  readonly disabledReason: string | null;
  /** Billing verdict from the merged catalog (rules C1–C7). */
  readonly billing: ConnectionBillingVerdict;
}

/**
 * One (provider, model, rung) group of connections: the unit handed to the ladder. Connections of
 * one provider serving one model are grouped, and split by rung up front (a plan login and a
 * metered key of the same provider never share a group), so the within-rung order the gateway
 * computes is exactly the order the ladder keeps (THR3, THR4).
 */
export interface CandidateGroup {
  readonly provider: string;
  readonly model: string;
  readonly rung: LadderRung;
  readonly rungIndex: number;
  /** Enabled connections in config order. */
  readonly connectionIds: readonly string[];
  /** Catalog price of the model on this provider, if priced. */
  readonly price: ModelPrice | undefined;
  /** Input + output USD per 1M tokens (the "cheapest first" key on paid rungs); Infinity if unpriced. */
  readonly blendedPricePerMTok: number;
  /** Config order of the group's first connection, then of the model within it. */
  readonly order: number;
}

/** What a requested model id resolved to. */
export type ModelResolution =
  | {
      ok: true;
      kind: "concrete" | "auto";
      /** `subscription` (fails closed) or `thrifty`; concrete models are ordered like thrifty. */
      grouping: "subscription" | "thrifty";
      category: string | null;
      groups: readonly CandidateGroup[];
    }
  | {
      ok: false;
      reason: "unknown_model" | "unknown_category" | "invalid_auto_id";
      message: string;
    };

/** Static routing facts built once from the config; nothing here changes per request. */
export interface RoutingTable {
  readonly connections: ReadonlyMap<string, RoutedConnection>;
  /** Concrete model ids in config order, unique. */
  readonly models: readonly string[];
  /** Defined category names. */
  readonly categories: readonly string[];
  /** The merged catalog (bundled + operator entries). */
  readonly catalog: Catalog;
  readonly tierResolver: TierResolver;
  /** The static half of the ladder options (catalog, auth types, tiers, tuning). */
  readonly ladderBase: Pick<
    LadderOptions,
    | "catalog"
    | "resolveAuthType"
    | "resolveEconomicTier"
    | "exitCutoffPercent"
    | "reentryMinRemainingPercent"
    | "maxStateAgeMs"
    | "rungBudgetUsd"
  >;
  /** Price of `model` on `provider` from the merged catalog. */
  priceOf(provider: string, model: string): ModelPrice | undefined;
  /** Rung of `model` served through `connectionId` (A1, A2). */
  rungOf(connectionId: string, model: string): LadderRung | undefined;
  /** Resolves a requested model id; the result for one id is computed once and cached. */
  resolve(modelId: string): ModelResolution;
}

/** Builds the routing table. Pure: reads nothing but its arguments. */
export function createRoutingTable(config: GatewayConfig, secrets: ResolvedSecrets): RoutingTable {
  const catalog = mergeCatalog(
    { connections: [...connectionBillingCatalog], models: [...modelPrices] },
    config.catalog,
  );
  const classifier = createConnectionClassifier(catalog.connections);
  const tierResolver = createTierResolver({ prices: catalog.models });
  const prices = new Map<string, ModelPrice>();
  for (const price of catalog.models) prices.set(modelPriceKey(price), price);
  const priceOf = (provider: string, model: string) =>
    prices.get(modelPriceKey({ provider, model }));

  const connections = new Map<string, RoutedConnection>();
  config.connections.forEach((connection, index) => {
    connections.set(connection.id, {
      config: connection,
      index,
      credential: secrets.credentials.get(connection.id) ?? null,
      disabledReason: secrets.disabledConnections.get(connection.id) ?? null,
      billing: classifier.classify({
        provider: connection.provider,
        authType: connection.authType,
      }),
    });
  });

  const ladderBase: RoutingTable["ladderBase"] = {
    catalog: catalog.connections,
    resolveAuthType: (connectionId: string) =>
      connections.get(connectionId)?.config.authType ?? null,
    resolveEconomicTier: (provider: string, model: string) =>
      tierResolver.classifyTier(provider, model).tier,
    exitCutoffPercent: config.subscriptionLadder.exitCutoffPercent,
    reentryMinRemainingPercent: config.subscriptionLadder.reentryMinRemainingPercent,
    maxStateAgeMs: config.subscriptionLadder.maxStateAgeMs,
    rungBudgetUsd: config.subscriptionLadder.rungBudgetUsd,
  };

  const rungs = new Map<string, LadderRung>();
  const rungKey = (connectionId: string, model: string) => `${connectionId}\u0000${model}`;
  for (const connection of config.connections) {
    for (const model of connection.models) {
      const rung = assignRung(
        { model },
        {
          provider: connection.provider,
          authType: connection.authType,
          connectionId: connection.id,
        },
        ladderBase as LadderOptions,
      );
      rungs.set(rungKey(connection.id, model), rung);
    }
  }

  // Every (provider, model, rung) group in config order, enabled connections only.
  const allGroups: CandidateGroup[] = [];
  const groupByKey = new Map<string, { group: CandidateGroup; ids: string[] }>();
  let order = 0;
  for (const connection of config.connections) {
    const routed = connections.get(connection.id)!;
    if (routed.disabledReason !== null) continue;
    for (const model of connection.models) {
      const rung = rungs.get(rungKey(connection.id, model))!;
      const key = `${connection.provider}\u0000${model}\u0000${rung}`;
      const existing = groupByKey.get(key);
      if (existing) {
        existing.ids.push(connection.id);
        continue;
      }
      const price = priceOf(connection.provider, model);
      const ids = [connection.id];
      const group: CandidateGroup = {
        provider: connection.provider,
        model,
        rung,
        rungIndex: rungIndex(rung),
        connectionIds: ids,
        price,
        blendedPricePerMTok: price ? price.inputPerMTok + price.outputPerMTok : Infinity,
        order: order++,
      };
      groupByKey.set(key, { group, ids });
      allGroups.push(group);
    }
  }

  const models = [...new Set(config.connections.flatMap((connection) => connection.models))];
  const categories = Object.keys(config.categories);
  const categoryMatchers = new Map<string, RegExp[]>();
  for (const [name, globs] of Object.entries(config.categories)) {
    categoryMatchers.set(name, globs.map(compileGlob));
  }

  const resolutions = new Map<string, ModelResolution>();
  function computeResolution(modelId: string): ModelResolution {
    if (modelId.startsWith("auto/")) {
      const parsed = parseAutoId(modelId);
      if (!parsed) {
        return {
          ok: false,
          reason: "invalid_auto_id",
          message: `"${modelId}" is not a valid auto id: use auto/<tier> or auto/<category>:<tier> with tier subscription or thrifty`,
        };
      }
      let groups: CandidateGroup[] = allGroups;
      const category = parsed.category ?? null;
      if (category !== null) {
        const matchers = categoryMatchers.get(category);
        if (!matchers) {
          return {
            ok: false,
            reason: "unknown_category",
            message: `unknown category "${category}"; defined: ${categories.join(", ") || "(none)"}`,
          };
        }
        groups = allGroups.filter((group) => matchers.some((m) => m.test(group.model)));
      }
      return {
        ok: true,
        kind: "auto",
        grouping: parsed.tier === "subscription" ? "subscription" : "thrifty",
        category,
        groups,
      };
    }
    if (!models.includes(modelId)) {
      return {
        ok: false,
        reason: "unknown_model",
        message: `model "${modelId}" is not configured; see GET /v1/models`,
      };
    }
    return {
      ok: true,
      kind: "concrete",
      grouping: "thrifty",
      category: null,
      groups: allGroups.filter((group) => group.model === modelId),
    };
  }

  return {
    connections,
    models,
    categories,
    catalog,
    tierResolver,
    ladderBase,
    priceOf,
    rungOf: (connectionId, model) => rungs.get(rungKey(connectionId, model)),
    resolve(modelId) {
      let resolution = resolutions.get(modelId);
      if (!resolution) {
        resolution = computeResolution(modelId);
        // Unknown ids are not cached: a client must not be able to grow this map without bound.
        if (resolution.ok) resolutions.set(modelId, resolution);
      }
      return resolution;
    },
  };
}

/** Compiles a model glob (`*` any run, `?` one character), case-insensitive. */
export function compileGlob(glob: string): RegExp {
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return new RegExp(`^${body}$`, "i");
}
