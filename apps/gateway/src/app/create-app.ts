import { createSessionBook } from "@planfirst/quota-cache";
import { Hono } from "hono";
import { createMemoryCredentialPersistence } from "../connectors/credential-persistence";
import { wireConnectors } from "../connectors/wire-connectors";
import type { GatewayDeps } from "../deps";
import { clientHeaderNames } from "../dispatch/client-headers";
import type { ConnectionSlots } from "../dispatch/connection-slots";
import { createDispatcher } from "../dispatch/dispatcher";
import { createKeyLimiter, type KeyLimiter, limitClientKeys } from "../dispatch/key-limits";
import { GatewayError } from "../errors";
import { requestHeader } from "../http/client-signal";
import { fastPathKey, type NodeRouteHandler } from "../http/node-listener";
import { createRequestLog, type RequestLog } from "../observability/request-log/request-log";
import { createMemoryRequestLogStore } from "../observability/request-log/request-log-store";
import { createRoutingTable } from "../routing/routing-table";
import { createMemoryHistoryStore } from "../status/history-store";
import { observeServed } from "../status/observe-served";
import { createStatusFeed } from "../status/status-feed";
import { createStatusTracker, type StatusTracker } from "../status/status-tracker";
import type { AppContext, GatewayEnv } from "./app-context";
import { authenticate } from "./auth/authenticate";
import { createClientKeyVerifier } from "./auth/client-keys";
import { errorReply, streamFailureOf } from "./on-error";
import { adminRoutes } from "./routes/admin";
import { chatCompletionsRoutes } from "./routes/chat-completions";
import { completionNodeHandler } from "./routes/completions";
import { countTokensRoutes } from "./routes/count-tokens";
import { healthRoutes } from "./routes/health";
import { ladderRoutes } from "./routes/ladder";
import { messagesRoutes } from "./routes/messages";
import { modelsRoutes } from "./routes/models";
import { requestsRoutes } from "./routes/requests";
import { responsesRoutes } from "./routes/responses";
import { completionRoutes, protocolOfPath } from "./routes/route-table";
import { isStatusPath, statusRoutes } from "./routes/status";
import { refuseWebSocketHandshakes } from "./websocket-refusal";

/** A built gateway app: the Hono app plus what it built from its deps. */
export interface GatewayApp {
  /** The Hono app; pass `app.fetch` to `serve()` or call `app.request()` in tests. */
  readonly hono: Hono<GatewayEnv>;
  readonly context: AppContext;
  /**
   * Stops what the app runs by itself: the status feed's timer; its open event streams end,
   * and the pages behind them reconnect (to whatever app then serves).
   */
  close(): void;
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
 * `parts.statusTracker` keeps the status page's history and last-served rungs, `parts.requestLog`
 * the request log, `parts.keyLimiter` each client key's requests in flight and recent starts
 * (default: in memory, for this app alone), `parts.slots` the per-connection concurrency limits
 * (default: the dispatcher's own; a gateway shares one of each across its config generations).
 */
export function buildGatewayApp(
  given: GatewayDeps,
  parts: {
    statusTracker?: StatusTracker;
    requestLog?: RequestLog;
    keyLimiter?: KeyLimiter;
    slots?: ConnectionSlots;
  } = {},
): GatewayApp {
  const deps = withSessions(given.connectors ? given : withConnectors(given));
  const table = createRoutingTable(deps.config, deps.secrets);
  const status =
    parts.statusTracker ??
    createStatusTracker({ store: createMemoryHistoryStore(), now: deps.now });
  const dispatcher = observeServed(
    limitClientKeys(
      createDispatcher(deps, table, {
        streamFailureOf: (error) => streamFailureOf(deps.logger, error),
        ...(parts.slots ? { slots: parts.slots } : {}),
      }),
      parts.keyLimiter ?? createKeyLimiter(deps.now),
    ),
    status,
    deps.now,
  );
  const verifier = createClientKeyVerifier(deps.secrets.clientKeys);
  const requestLog = parts.requestLog ?? memoryRequestLog(deps);
  const context: AppContext = {
    deps,
    table,
    dispatcher,
    verifier,
    status,
    requestLog,
    clientHeaderNames: clientHeaderNames(deps.connectors?.values() ?? []),
  };
  const feed = createStatusFeed(context, status);

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
  hono.route("/", statusRoutes(context, feed));
  hono.route("/", requestsRoutes(context));
  hono.route("/", adminRoutes(context));

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

  return { hono, context, close: () => feed.close() };
}

/** `deps` with a session book: the one given, else one kept in this process's memory. */
function withSessions(deps: GatewayDeps): GatewayDeps {
  if (deps.sessions) return deps;
  const { idleTtlMs, maxEntries } = deps.config.subscriptionLadder.sessionAffinity;
  const sessions = createSessionBook({ now: deps.now, idleTtlMs, maxEntries });
  return { ...deps, sessions };
}

/** The request log `server.requestLog` asks for, kept in memory. */
function memoryRequestLog(deps: GatewayDeps): RequestLog {
  const { enabled, maxRecords, maxAgeDays } = deps.config.server.requestLog;
  return createRequestLog({
    store: enabled ? createMemoryRequestLogStore({ maxRecords }) : null,
    now: deps.now,
    maxRecords,
    maxAgeDays,
    onDropped: (count) => deps.metrics.countRequestLogDropped(count),
  });
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
