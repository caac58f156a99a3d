import type { ServerResponse } from "node:http";
import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import { Hono } from "hono";
import { pickClientHeaders, pickClientQuery } from "../../dispatch/client-headers";
import { GatewayError } from "../../errors";
import { clientSignal } from "../../http/client-signal";
import { writeNodeReply } from "../../http/node-reply";
import { type GatewayReply, replyToResponse } from "../../http/reply";
import { readJsonBody } from "../../http/request-body";
import type { AppContext, GatewayEnv } from "../app-context";
import { answerCompletion } from "./completions";
import { COMPLETION_ROUTES, type CompletionRoute } from "./route-table";

const COUNT_TOKENS: CompletionRoute = {
  ...COMPLETION_ROUTES.messages,
  path: `${COMPLETION_ROUTES.messages.path}/count_tokens`,
  subPath: "/count_tokens",
};

/** Upstream answers meaning the endpoint is not there. */
const NOT_SERVED = new Set([404, 405, 501]);

/** Errors after which the local estimate answers: no Anthropic upstream of the route could. */
const ESTIMATE_AFTER = new Set([
  "unsupported_field",
  "all_targets_failed",
  "all_targets_rate_limited",
  "no_available_target",
  "plan_quota_exhausted",
  "budget_exhausted",
  "spend_store_unavailable",
  "local_capacity",
]);

/**
 * `POST /v1/messages/count_tokens`: forwarded to the first Anthropic upstream of the route in
 * ladder order (it costs nothing there, so nothing is reserved or booked); when the route has no
 * Anthropic upstream that answers, a local estimate `{ input_tokens }` marked
 * `x-planfirst-estimate: true`, so a client sizing its context (Claude Code) still gets a number.
 */
export function countTokensRoutes(app: AppContext): Hono<GatewayEnv> {
  const limit = app.deps.config.server.bodyLimitBytes;
  return new Hono<GatewayEnv>().post(COUNT_TOKENS.path, async (c) => {
    const body = await readJsonBody(c, limit);
    let reply: GatewayReply;
    try {
      reply = await answerCompletion(app, COUNT_TOKENS, body, c.var.client, clientSignal(c), {
        clientHeaders: pickClientHeaders(app.clientHeaderNames, (name) => c.req.header(name)),
        query: pickClientQuery({ get: (name) => c.req.query(name) }),
        unbilled: true,
      });
    } catch (error) {
      if (!GatewayError.isInstance(error) || !ESTIMATE_AFTER.has(error.code)) throw error;
      reply = estimateReply(body);
    }
    // An Anthropic-compatible server without count_tokens (several have none): estimate.
    if (reply.kind === "body" && NOT_SERVED.has(reply.status)) reply = estimateReply(body);
    const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
    if (!outgoing) return replyToResponse(reply);
    writeNodeReply(outgoing, reply);
    return RESPONSE_ALREADY_SENT;
  });
}

/**
 * A local over-estimate of the prompt's tokens: the UTF-8 bytes of its system, messages and
 * tools as JSON divided by 3.5 (real tokenisers average about 4 bytes of English per token, and
 * the JSON punctuation counts too), so a client trimming its context trims early, not late.
 */
function estimateInputTokens(body: Record<string, unknown>): number {
  const counted = JSON.stringify([body.system ?? null, body.messages ?? [], body.tools ?? []]);
  return Math.ceil(Buffer.byteLength(counted) / 3.5);
}

function estimateReply(body: Record<string, unknown>): GatewayReply {
  return {
    kind: "body",
    status: 200,
    headers: { "content-type": "application/json", "x-planfirst-estimate": "true" },
    body: JSON.stringify({ input_tokens: estimateInputTokens(body) }),
  };
}
