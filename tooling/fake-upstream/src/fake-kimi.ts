import type { ServerResponse } from "node:http";
import { createOauthEndpoint, type FakeOauthControls } from "./plan-oauth";
import { kimiUsagePayload } from "./plan-payloads";
import {
  chatCompletion,
  json,
  noRoute,
  type PlanFakeSetup,
  type PlanRequest,
  type PlanRoute,
} from "./plan-route";
import { createTokenAuthority } from "./token-authority";

/**
 * User-Agents of coding agents Kimi For Coding admits, by prefix: the Kimi CLI's and Claude
 * Code's (quota-signals.md §15). Any other client is refused with a 403.
 */
const CODING_AGENTS = ["KimiCLI/", "claude-cli/"];

function isCodingAgent(userAgent: string | undefined): boolean {
  return CODING_AGENTS.some((prefix) => userAgent?.startsWith(prefix) === true);
}

/** The Kimi Code plan and its auth server. */
export interface FakeKimi extends FakeOauthControls {
  /** `{origin}/coding/v1`: POST `/chat/completions`. */
  baseUrl: string;
  usageUrl: string;
  /** Requests used of the 5 h window (limit 100); default 10. */
  sessionUsed: number;
}

/**
 * The Kimi fake on the shared server: its auth server (`/api/oauth/token`, form-encoded
 * refresh_token grant with rotation), `/coding/v1/usages` with string numbers and
 * `/coding/v1/chat/completions`, which serves coding agents only (by User-Agent); see
 * `startFakePlanProviders`.
 */
export function createFakeKimi(setup: PlanFakeSetup): { fake: FakeKimi; route: PlanRoute } {
  const { origin, now } = setup;
  const kimiAuthority = createTokenAuthority({
    prefix: "kimi",
    now,
    accessTokenTtlSec: setup.accessTokenTtlSec,
  });
  const oauth = createOauthEndpoint(
    kimiAuthority,
    `${origin}/api/oauth/token`,
    "kimi-fake-client",
    () => ({ scope: "kimi-code", token_type: "Bearer" }),
  );
  const kimi: FakeKimi = Object.assign(oauth.controls, {
    baseUrl: `${origin}/coding/v1`,
    usageUrl: `${origin}/coding/v1/usages`,
    sessionUsed: 10,
  });

  function coding(request: PlanRequest, response: ServerResponse) {
    const { method, path, record, bearer } = request;
    if (!bearer || !kimiAuthority.accepts(bearer)) {
      return json(response, 401, {
        error: {
          message: "The API Key appears to be invalid or may have expired.",
          type: "invalid_authentication_error",
        },
      });
    }
    if (method === "GET" && path === "/coding/v1/usages") {
      return json(
        response,
        200,
        kimiUsagePayload({
          weeklyLimit: 2048,
          weeklyUsed: 512,
          weeklyResetAt: new Date(now() + 3 * 86_400_000).toISOString(),
          sessionLimit: 100,
          sessionUsed: kimi.sessionUsed,
          sessionResetAt: new Date(now() + 2 * 3600_000).toISOString(),
        }),
      );
    }
    if (method === "POST" && path === "/coding/v1/chat/completions") {
      if (!isCodingAgent(request.headers["user-agent"])) {
        return json(response, 403, {
          error: {
            message:
              "Kimi For Coding is currently only available for Coding Agents such as Kimi CLI, Claude Code, Roo Code, Kilo Code, etc.",
            type: "access_terminated_error",
          },
        });
      }
      return chatCompletion(response, record);
    }
    return noRoute(response, path);
  }

  async function route(request: PlanRequest, response: ServerResponse) {
    if (request.method === "POST" && request.path === "/api/oauth/token") {
      await oauth.refresh(request, response);
      return true;
    }
    if (request.path.startsWith("/coding/v1/")) {
      coding(request, response);
      return true;
    }
    return false;
  }

  return { fake: kimi, route };
}
