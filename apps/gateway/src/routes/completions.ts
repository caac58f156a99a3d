import { randomUUID } from "node:crypto";
import type { ServerResponse } from "node:http";
import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import type { Context } from "hono";
import type { AppContext, GatewayEnv } from "../app-context";
import { replyToResponse } from "../dispatch/reply";
import { GatewayError } from "../errors";
import { clientSignal } from "../http/node-env";
import { writeNodeReply } from "../http/node-reply";
import { readJsonBody } from "../http/request-body";
import type { WireProtocol } from "../protocols";

/**
 * Shared handler of both completion routes: parse once, validate the model field, dispatch.
 * Served by `@hono/node-server`, the answer is written straight to Node's response; under
 * `app.request()` it is a web `Response`. Errors go to the app's `onError` either way.
 */
export function completionHandler(app: AppContext, protocol: WireProtocol) {
  const limit = app.deps.config.server.bodyLimitBytes;
  return async (c: Context<GatewayEnv>): Promise<Response> => {
    const body = await readJsonBody(c, limit);
    const modelId = body.model;
    if (typeof modelId !== "string" || modelId === "") {
      throw new GatewayError('"model" is required: a configured model id or an auto id', {
        code: "missing_model",
        status: 400,
      });
    }
    const reply = await app.dispatcher.dispatch({
      protocol,
      body,
      modelId,
      stream: body.stream === true,
      client: c.var.client,
      requestId: randomUUID(),
      signal: clientSignal(c),
    });
    const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
    if (!outgoing) return replyToResponse(reply);
    writeNodeReply(outgoing, reply);
    return RESPONSE_ALREADY_SENT;
  };
}
