import { Hono } from "hono";
import { createMemoryCredentialPersistence } from "../connectors/credential-persistence";
import { wireConnectors } from "../connectors/wire-connectors";
import type { GatewayDeps } from "../deps";
import { createDispatcher } from "../dispatch/dispatcher";
import { limitClientKeys } from "../dispatch/key-limits";
import { GatewayError } from "../errors";
import { requestHeader } from "../http/client-signal";
import { fastPathKey, type NodeRouteHandler } from "../http/node-listener";
import { createRoutingTable } from "../routing/routing-table";
import { createMemoryHistoryStore } from "../status/history-store";
import { observeServed } from "../status/observe-served";
import { createStatusTracker, type StatusTracker } from "../status/status-tracker";
import type { AppContext, GatewayEnv } from "./app-context";
import { authenticate } from "./auth/authenticate";
import { createClientKeyVerifier } from "./auth/client-keys";
import { errorReply } from "./on-error";
import { chatCompletionsRoutes } from "./routes/chat-completions";
import { completionNodeHandler } from "./routes/completions";
import { countTokensRoutes } from "./routes/count-tokens";
import { healthRoutes } from "./routes/health";
import { ladderRoutes } from "./routes/ladder";
import { messagesRoutes } from "./routes/messages";
import { modelsRoutes } from "./routes/models";
import { responsesRoutes } from "./routes/responses";
import { completionRoutes, protocolOfPath } from "./routes/route-table";
import { isStatusPath, statusRoutes } from "./routes/status";
import { refuseWebSocketHandshakes } from "./websocket-refusal";

/** A built gateway app: the Hono app plus what it built from its deps. */
export interface GatewayApp {
  /** The Hono app; pass `app.fetch` to `serve()` or call `app.request()` in tests. */
  readonly hono: Hono<GatewayEnv>;
  readonly context: AppContext;
}

/**
 * Builds the gateway's Hono app from injected deps (see `buildGatewayApp`); pass `app.fetch` to
 * `serve()`, or call `app.request()` in tests.
 */
export function createApp(deps: GatewayDeps): Hono<GatewayEnv> {
  return buildGatewayApp(deps).hono;
}

/**
 * Builds the gateway's Hono app from injected deps. Everything static (routing table, catalog
 * index, tier resolver, client-key digests, the pool per model id) is built here once, never per
 * request. Every endpoint but `/healthz` requires a client key when keys are configured
 * (`Authorization: Bearer KEY` or `x-api-key: KEY`); a WebSocket handshake on any path is
 * answered `426` before that, as no WebSocket transport is served. Errors are mapped to HTTP in
 * one `onError`: Anthropic-shaped on `/v1/messages`, OpenAI-shaped elsewhere, never with a
 * credential.
 * `parts.statusTracker` keeps the status page's history and last-served rungs (default: in memory).
 */
export function buildGatewayApp(
  given: GatewayDeps,
  parts: { statusTracker?: StatusTracker } = {},
): GatewayApp {
  const deps = given.connectors ? given : withConnectors(given);
  const table = createRoutingTable(deps.config, deps.secrets);
  const status =
    parts.statusTracker ??
    createStatusTracker({ store: createMemoryHistoryStore(), now: deps.now });
  const dispatcher = observeServed(
    limitClientKeys(createDispatcher(deps, table), deps.now),
    status,
    deps.now,
  );
  const verifier = createClientKeyVerifier(deps.secrets.clientKeys);
  const context: AppContext = { deps, table, dispatcher, verifier, status };

  const hono = new Hono<GatewayEnv>();
  hono.use(refuseWebSocketHandshakes(deps.logger));
  hono.use(async (c, next) => {
    if (c.req.path === "/healthz" || isStatusPath(c.req.path)) return next();
    c.set(
      "client",
      authenticate(context, requestHeader(c, "authorization"), requestHeader(c, "x-api-key")),
    );
    return next();
  });
  hono.route("/", healthRoutes(context));
  hono.route("/", chatCompletionsRoutes(context));
  hono.route("/", messagesRoutes(context));
  hono.route("/", countTokensRoutes(context));
  hono.route("/", responsesRoutes(context));
  hono.route("/", modelsRoutes(context));
  hono.route("/", ladderRoutes(context));
  hono.route("/", statusRoutes(context));

  hono.notFound((c) => {
    const error = new GatewayError({
      code: "route_not_found",
      message: `no route ${c.req.method} ${c.req.path}`,
    });
    const reply = errorReply(deps.logger, error, protocolOfPath(c.req.path));
    return new Response(reply.body, { status: reply.status, headers: reply.headers });
  });

  hono.onError((error, c) => {
    const reply = errorReply(deps.logger, error, protocolOfPath(c.req.path));
    return new Response(reply.body, { status: reply.status, headers: reply.headers });
  });

  return { hono, context };
}

/** `deps` with a connector per connection, tokens kept in memory (tests, embedders). */
function withConnectors(deps: GatewayDeps): GatewayDeps {
  const wired = wireConnectors(deps.secrets, {
    persistence: createMemoryCredentialPersistence(),
    now: deps.now,
  });
  return { ...deps, secrets: wired.secrets, connectors: wired.connectors };
}

/**
 * The Node listener's fast paths: every completion route of the route table, answered without
 * a web `Request` through the same auth, body limit, dispatch and error answers as its Hono route.
 */
export function nodeFastPaths(context: AppContext): ReadonlyMap<string, NodeRouteHandler> {
  const paths = new Map<string, NodeRouteHandler>();
  for (const route of completionRoutes()) {
    paths.set(fastPathKey(route.method, route.path), completionNodeHandler(context, route));
  }
  return paths;
}
