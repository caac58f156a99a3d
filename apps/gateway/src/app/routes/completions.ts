import { randomUUID } from "node:crypto";
import type { ServerResponse } from "node:http";
import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import type { Context } from "hono";
import type { AppContext, GatewayEnv } from "../app-context";
import type { ClientIdentity } from "../auth/client-keys";
import { GatewayError } from "../errors";
import { clientSignal } from "../http/node-env";
import { writeNodeReply } from "../http/node-reply";
import type { GatewayReply } from "../http/reply";
import { replyToResponse } from "../http/reply";
import { readJsonBody } from "../http/request-body";
import type { WireProtocol } from "../protocols";
import type { AbortSignalLike } from "../upstream";

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
