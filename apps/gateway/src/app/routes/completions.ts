import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import type { Context } from "hono";
import { pickClientHeaders, pickClientQuery } from "../../dispatch/client-headers";
import type { ClientHeaders } from "../../dispatch/types";
import { GatewayError } from "../../errors";
import { clientSignal, nodeClientSignal } from "../../http/client-signal";
import { flatString } from "../../http/flat-string";
import type { NodeRouteHandler } from "../../http/node-listener";
import { writeNodeReply } from "../../http/node-reply";
import type { GatewayReply } from "../../http/reply";
import { replyToResponse } from "../../http/reply";
import { readJsonBody, readNodeJsonBody } from "../../http/request-body";
import type { RequestTrace } from "../../observability/request-log/request-trace";
import { conversationOpeningOf } from "../../protocols";
import {
  pickSessionHeaders,
  type SessionHeaders,
  type SessionKey,
  sessionKeyOf,
} from "../../routing/session-key";
import type { AbortSignalLike } from "../../upstream";
import type { AppContext, GatewayEnv } from "../app-context";
import { authenticate } from "../auth/authenticate";
import type { ClientIdentity } from "../auth/client-keys";
import { MAX_WAIT_HEADER, parseMaxWaitHeader } from "../max-wait-header";
import { asGatewayError, errorReply } from "../on-error";
import { validateCompletionBody } from "../validate-body";
import type { CompletionRoute } from "./route-table";

/** What a completion route reads from the request line and headers besides the body. */
interface CompletionExtras {
  readonly clientHeaders: ClientHeaders | undefined;
  /** The session headers the client sent (`x-claude-code-session-id`, …), if any. */
  readonly sessionHeaders?: SessionHeaders;
  /** The query parameters some wire forwards (Claude Code's `beta=true`), see `pickClientQuery`. */
  readonly query: string | undefined;
  /** The upstream bills nothing for it (`count_tokens`): no reservation, nothing booked. */
  readonly unbilled?: boolean;
  /** The client's `x-planfirst-max-wait`, as sent (read by `answerCompletion`); absent = not said. */
  readonly maxWait?: string | undefined;
}

/**
 * Shared handler of the completion routes under Hono: `completionReply`, then the answer is
 * written straight to Node's response when served by `@hono/node-server`, else returned as a
 * web `Response`.
 */
export function completionHandler(app: AppContext, route: CompletionRoute) {
  const limit = app.deps.config.server.bodyLimitBytes;
  return async (c: Context<GatewayEnv>): Promise<Response> => {
    const header = (name: string) => c.req.header(name);
    const extras: CompletionExtras = {
      clientHeaders: pickClientHeaders(app.clientHeaderNames, header),
      sessionHeaders: pickSessionHeaders(header),
      query: pickClientQuery({ get: (name) => c.req.query(name) }),
      maxWait: header(MAX_WAIT_HEADER),
    };
    const reply = await completionReply(
      app,
      route,
      c.var.client,
      () => readJsonBody(c, limit),
      clientSignal(c),
      extras,
    );
    const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
    if (!outgoing) return replyToResponse(reply);
    writeNodeReply(outgoing, reply);
    return RESPONSE_ALREADY_SENT;
  };
}

/**
 * One completion request of an authenticated client, from its arrival to its answer: reads the
 * body, `answerCompletion`, and keeps the request's record in the request log (every request
 * with a valid key, refused ones included; a stream's record is ended by the stream). Never
 * rejects: a failure is answered with the error reply the app's `onError` would give.
 */
async function completionReply(
  app: AppContext,
  route: CompletionRoute,
  client: ClientIdentity,
  readBody: () => Promise<Record<string, unknown>>,
  signal: AbortSignalLike | undefined,
  extras: CompletionExtras,
): Promise<GatewayReply> {
  const trace = app.requestLog.begin(newRequestId(), client.id);
  try {
    const body = await readBody();
    const reply = await answerCompletion(app, route, body, client, signal, extras, trace);
    if (reply.kind === "body") {
      trace.end(reply.status, reply.status < 400 ? "served" : "upstream_rejected_request");
    }
    return reply;
  } catch (error) {
    const failure = asGatewayError(app.deps.logger, error);
    const reply = errorReply(app.deps.logger, failure, route.protocol);
    const gone = failure.code === "client_closed_request";
    trace.end(reply.status, gone ? "client_closed" : failure.code, !gone);
    return reply;
  }
}

/**
 * One completion request after its body is parsed, whichever way it was served: validates the
 * model field, the body and `x-planfirst-max-wait`, and dispatches, recording the model asked on `trace`. Rejects with `GatewayError`
 * (or `ProtocolError`).
 */
export function answerCompletion(
  app: AppContext,
  route: CompletionRoute,
  body: Record<string, unknown>,
  client: ClientIdentity,
  signal: AbortSignalLike | undefined,
  extras: CompletionExtras = NO_EXTRAS,
  trace?: RequestTrace,
): Promise<GatewayReply> {
  const modelId = body.model;
  if (typeof modelId !== "string" || modelId === "") {
    return Promise.reject(
      new GatewayError({
        message: '"model" is required: a configured model id or an auto id',
        code: "missing_model",
      }),
    );
  }
  const stream = body.stream === true;
  if (trace) {
    trace.modelAsked = modelId;
    trace.stream = stream;
  }
  let maxWaitMs: number | undefined;
  try {
    validateCompletionBody(route.protocol, body, app.deps.config.server.bodyLimitBytes);
    maxWaitMs = parseMaxWaitHeader(extras.maxWait);
  } catch (error) {
    return Promise.reject(error);
  }
  const session = extras.unbilled ? undefined : sessionOf(app, route, body, client, extras);
  if (trace && session) trace.sessionHash = session.hash;
  return app.dispatcher.dispatch({
    protocol: route.protocol,
    ...(extras.clientHeaders ? { clientHeaders: extras.clientHeaders } : {}),
    ...(extras.query ? { query: extras.query } : {}),
    ...(route.subPath ? { subPath: route.subPath } : {}),
    ...(extras.unbilled ? { unbilled: true } : {}),
    ...(maxWaitMs !== undefined ? { maxWaitMs } : {}),
    body,
    modelId,
    stream,
    client,
    ...(session ? { session } : {}),
    requestId: trace ? trace.requestId : newRequestId(),
    signal,
    ...(trace ? { trace } : {}),
  });
}

/**
 * The Node fast path of a completion route: the same auth, body limit, dispatch, request log
 * and error answers as the Hono route, without a web `Request`. Never rejects.
 */
export function completionNodeHandler(app: AppContext, route: CompletionRoute): NodeRouteHandler {
  const limit = app.deps.config.server.bodyLimitBytes;
  return async (incoming: IncomingMessage, outgoing: ServerResponse) => {
    try {
      const headers = incoming.headers;
      const client = authenticate(app, first(headers.authorization), first(headers["x-api-key"]));
      const header = headerOf(headers);
      const extras: CompletionExtras = {
        clientHeaders: pickClientHeaders(app.clientHeaderNames, header),
        sessionHeaders: pickSessionHeaders(header),
        query: pickClientQuery(queryParams(incoming.url)),
        maxWait: header(MAX_WAIT_HEADER),
      };
      const reply = await completionReply(
        app,
        route,
        client,
        () => readNodeJsonBody(incoming, limit),
        nodeClientSignal(outgoing),
        extras,
      );
      if (outgoing.headersSent || outgoing.destroyed) {
        // The client left while the answer was made: a stream still stops, settles and logs.
        if (reply.kind === "stream") reply.source.cancel();
        return;
      }
      writeNodeReply(outgoing, reply);
    } catch (error) {
      if (outgoing.headersSent || outgoing.destroyed) return;
      writeNodeReply(outgoing, errorReply(app.deps.logger, error, route.protocol));
    }
  };
}

const NO_EXTRAS: CompletionExtras = { clientHeaders: undefined, query: undefined };

/**
 * The session of a completion request (ladder.md §16): from the session headers, the body's own
 * ids, else the conversation's opening as the route's protocol reads it. None while affinity is
 * off (`idleTtlMs: 0`).
 */
function sessionOf(
  app: AppContext,
  route: CompletionRoute,
  body: Record<string, unknown>,
  client: ClientIdentity,
  extras: CompletionExtras,
): SessionKey | undefined {
  if (app.deps.sessions?.enabled !== true) return undefined;
  const key = sessionKeyOf({
    headers: extras.sessionHeaders,
    body,
    clientId: client.id,
    opening: openingOf(route.protocol, body),
  });
  return key ?? undefined;
}

/**
 * The conversation's opening as `protocol` reads it from `body`, for the session key. Made by a
 * function rather than written inline, here and in {@link headerOf}: a closure bound to a name
 * or a property is named again on every request when the gateway runs from its sources.
 */
function openingOf(protocol: CompletionRoute["protocol"], body: Record<string, unknown>) {
  return (maxChars: number) => conversationOpeningOf(protocol, body, maxChars);
}

/** Reads one header of Node's `headers` (its first value when repeated). */
function headerOf(headers: IncomingMessage["headers"]) {
  return (name: string) => first(headers[name]);
}

/** The query of a request target; undefined when it has none. */
function queryParams(url: string | undefined): URLSearchParams | undefined {
  const start = url?.indexOf("?") ?? -1;
  if (url === undefined || start === -1) return undefined;
  return new URLSearchParams(url.slice(start + 1));
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * A new request id. It is held as long as the request (a long stream's whole life), so it is
 * kept flat rather than as the pieces `randomUUID()` builds it from.
 */
function newRequestId(): string {
  return flatString(randomUUID());
}
