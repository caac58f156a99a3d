import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import type { Context } from "hono";
import { GatewayError } from "../../errors";
import { clientSignal, nodeClientSignal } from "../../http/client-signal";
import type { NodeRouteHandler } from "../../http/node-listener";
import { writeNodeReply } from "../../http/node-reply";
import type { GatewayReply } from "../../http/reply";
import { replyToResponse } from "../../http/reply";
import { readJsonBody, readNodeJsonBody } from "../../http/request-body";
import type { WireProtocol } from "../../protocols";
import type { AbortSignalLike } from "../../upstream";
import type { AppContext, GatewayEnv } from "../app-context";
import { authenticate } from "../auth/authenticate";
import type { ClientIdentity } from "../auth/client-keys";
import { errorReply } from "../on-error";

/**
 * Shared handler of both completion routes under Hono: parse once, then `answerCompletion`.
 * Served by `@hono/node-server`, the answer is written straight to Node's response; under
 * `app.request()` it is a web `Response`. Errors go to the app's `onError` either way.
 */
export function completionHandler(app: AppContext, protocol: WireProtocol) {
  const limit = app.deps.config.server.bodyLimitBytes;
  return async (c: Context<GatewayEnv>): Promise<Response> => {
    const body = await readJsonBody(c, limit);
    const reply = await answerCompletion(app, protocol, body, c.var.client, clientSignal(c));
    const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
    if (!outgoing) return replyToResponse(reply);
    writeNodeReply(outgoing, reply);
    return RESPONSE_ALREADY_SENT;
  };
}

/**
 * One completion request after its body is parsed, whichever way it was served: validates the
 * model field and dispatches. Rejects with `GatewayError` (or `ProtocolError`).
 */
export function answerCompletion(
  app: AppContext,
  protocol: WireProtocol,
  body: Record<string, unknown>,
  client: ClientIdentity,
  signal: AbortSignalLike | undefined,
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
  return app.dispatcher.dispatch({
    protocol,
    body,
    modelId,
    stream: body.stream === true,
    client,
    requestId: randomUUID(),
    signal,
  });
}

/**
 * The Node fast path of a completion route: the same auth, body limit, dispatch and error
 * answers as the Hono route, without a web `Request`. Never rejects.
 */
export function completionNodeHandler(app: AppContext, protocol: WireProtocol): NodeRouteHandler {
  const limit = app.deps.config.server.bodyLimitBytes;
  return async (incoming: IncomingMessage, outgoing: ServerResponse) => {
    try {
      const headers = incoming.headers;
      const client = authenticate(app, first(headers.authorization), first(headers["x-api-key"]));
      const body = await readNodeJsonBody(incoming, limit);
      const reply = await answerCompletion(app, protocol, body, client, nodeClientSignal(outgoing));
      writeNodeReply(outgoing, reply);
    } catch (error) {
      if (outgoing.headersSent || outgoing.destroyed) return;
      writeNodeReply(outgoing, errorReply(app.deps.logger, error, protocol));
    }
  };
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
