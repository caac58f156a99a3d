import { Hono } from "hono";
import { errorReply } from "./app/on-error";
import type { AppContext, GatewayEnv } from "./app-context";
import { type ClientIdentity, createClientKeyVerifier } from "./auth/client-keys";
import type { GatewayDeps } from "./deps";
import { createDispatcher } from "./dispatch/dispatch";
import { createRoutingTable } from "./dispatch/routing-table";
import { GatewayError } from "./errors";
import { errorBody } from "./http/error-body";
import { requestHeader } from "./http/node-env";
import type { WireProtocol } from "./protocols";
import { chatCompletionsRoutes } from "./routes/chat-completions";
import { healthRoutes } from "./routes/health";
import { ladderRoutes } from "./routes/ladder";
import { messagesRoutes } from "./routes/messages";
import { modelsRoutes } from "./routes/models";
import { statusRoutes } from "./routes/status";

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
 * (`Authorization: Bearer KEY` or `x-api-key: KEY`). Errors are mapped to HTTP in one `onError`:
 * Anthropic-shaped on `/v1/messages`, OpenAI-shaped elsewhere, never with a credential.
 */
export function buildGatewayApp(deps: GatewayDeps): GatewayApp {
  const table = createRoutingTable(deps.config, deps.secrets);
  const dispatcher = createDispatcher(deps, table);
  const verifier = createClientKeyVerifier(deps.secrets.clientKeys);
  const context: AppContext = { deps, table, dispatcher, verifier };

  const hono = new Hono<GatewayEnv>();
  hono.use(async (c, next) => {
    if (c.req.path === "/healthz") return next();
    c.set(
      "client",
      authenticate(context, requestHeader(c, "authorization"), requestHeader(c, "x-api-key")),
    );
    return next();
  });
  hono.route("/", healthRoutes(context));
  hono.route("/", chatCompletionsRoutes(context));
  hono.route("/", messagesRoutes(context));
  hono.route("/", modelsRoutes(context));
  hono.route("/", ladderRoutes(context));
  hono.route("/", statusRoutes(context));

  hono.notFound((c) => {
    const protocol = protocolOfPath(c.req.path);
    return c.json(
      errorBody(protocol, {
        message: `no route ${c.req.method} ${c.req.path}`,
        type: "not_found_error",
        code: "route_not_found",
      }),
      404,
    );
  });

  hono.onError((error, c) => {
    const reply = errorReply(deps.logger, error, protocolOfPath(c.req.path));
    return new Response(reply.body, { status: reply.status, headers: reply.headers });
  });

  return { hono, context };
}

/**
 * The authenticated client of a request, from its `Authorization` and `x-api-key` headers;
 * throws the 401 `GatewayError` when keys are configured and none matches.
 */
export function authenticate(
  context: AppContext,
  authorization: string | undefined,
  apiKey: string | undefined,
): ClientIdentity {
  const client = context.verifier.verify(authorization, apiKey);
  if (!client) {
    throw new GatewayError({
      message: "a valid client key is required (Authorization: Bearer or x-api-key)",
      code: "invalid_api_key",
    });
  }
  return client;
}

/** The client protocol whose error shape a path answers in: Anthropic on `/v1/messages`. */
export function protocolOfPath(path: string): WireProtocol {
  return path.startsWith("/v1/messages") ? "anthropic" : "openai";
}
