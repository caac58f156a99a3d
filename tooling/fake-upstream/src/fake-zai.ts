import type { ServerResponse } from "node:http";
import { zaiUsagePayload } from "./plan-payloads";
import {
  chatCompletion,
  json,
  type PlanFakeSetup,
  type PlanRequest,
  type PlanRoute,
} from "./plan-route";

/** The z.ai coding plan. */
export interface FakeZai {
  /** `{origin}/api/coding/paas/v4`: POST `/chat/completions`. */
  baseUrl: string;
  usageUrl: string;
  apiKey: string;
  /** TOKENS_LIMIT percentage used; default 20. */
  tokensPercentUsed: number;
  /** TOKENS_LIMIT nextResetTime, epoch ms; default now + 5 h. */
  tokensResetAtMs: number | null;
  /** When set, chat completions answer 429 code 1308 with this Beijing-time reset text. */
  exhaustedUntilBeijing: string | null;
}

/**
 * The z.ai fake on the shared server: `/api/monitor/usage/quota/limit` and
 * `/api/coding/paas/v4/chat/completions`; see `startFakePlanProviders`.
 */
export function createFakeZai(setup: PlanFakeSetup): { fake: FakeZai; route: PlanRoute } {
  const { origin, now } = setup;
  const zai: FakeZai = {
    baseUrl: `${origin}/api/coding/paas/v4`,
    usageUrl: `${origin}/api/monitor/usage/quota/limit`,
    apiKey: "zai-fake-key-0001.abcdef",
    tokensPercentUsed: 20,
    tokensResetAtMs: null,
    exhaustedUntilBeijing: null,
  };

  function usage(request: PlanRequest, response: ServerResponse) {
    if (request.credential.value !== zai.apiKey) {
      // z.ai answers a bad key on its monitor API with HTTP 200 and code 401 in the body.
      return json(response, 200, {
        code: 401,
        msg: "token expired or incorrect",
        success: false,
      });
    }
    return json(
      response,
      200,
      zaiUsagePayload({
        tokensPercentUsed: zai.exhaustedUntilBeijing ? 100 : zai.tokensPercentUsed,
        tokensResetAtMs: zai.tokensResetAtMs ?? now() + 5 * 3600_000,
        toolCallsUsed: 12,
      }),
    );
  }

  function completions(request: PlanRequest, response: ServerResponse) {
    if (request.bearer !== zai.apiKey) {
      return json(response, 401, { error: { code: "1000", message: "Authentication Failed" } });
    }
    if (zai.exhaustedUntilBeijing) {
      return json(response, 429, {
        error: {
          code: "1308",
          message: `Usage limit reached for 5 hour. Your limit will reset at ${zai.exhaustedUntilBeijing}`,
        },
      });
    }
    return chatCompletion(response, request.record);
  }

  async function route(request: PlanRequest, response: ServerResponse) {
    if (request.path === "/api/monitor/usage/quota/limit") {
      usage(request, response);
      return true;
    }
    if (request.path === "/api/coding/paas/v4/chat/completions" && request.method === "POST") {
      completions(request, response);
      return true;
    }
    return false;
  }

  return { fake: zai, route };
}
