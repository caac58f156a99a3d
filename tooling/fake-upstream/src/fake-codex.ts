import type { ServerResponse } from "node:http";
import { type CodexToolCall, codexSse, codexStreamFrames } from "./codex-stream";
import { echoCredential } from "./credential-echo";
import { createOauthEndpoint, type FakeOauthControls } from "./plan-oauth";
import { codexUsagePayload } from "./plan-payloads";
import { json, type PlanFakeSetup, type PlanRequest, type PlanRoute } from "./plan-route";
import { codexHeaders } from "./quota-headers";
import { createTokenAuthority } from "./token-authority";

/** The Codex backend and the OpenAI auth server. */
export interface FakeCodex extends FakeOauthControls {
  /** `{origin}/backend-api/codex`: POST `/responses`. */
  baseUrl: string;
  /** `{origin}/backend-api/wham/usage`. */
  usageUrl: string;
  /** The ChatGPT account the backend requires in `chatgpt-account-id`. */
  accountId: string;
  /** Used percent of the 5 h window reported in headers, events and usage; default 10. */
  fiveHourUsedPercent: number;
  /** Whether the account has credits (overage on); default false. */
  hasCredits: boolean;
  /** When set, `/responses` answers 429 `usage_limit_reached` resetting at this epoch second. */
  exhaustedUntilSec: number | null;
  /**
   * The text `/responses` answers; `ECHO_CREDENTIAL` in it is replaced by the access token the
   * request carried (an upstream that repeats back what it received). Default "ok".
   */
  text: string;
  /**
   * A tool call `/responses` answers with instead of text when the request declared a tool of
   * its kind (the first one); default null.
   */
  toolCall: CodexToolCall | null;
  /**
   * The stream's `Content-Type`; null sends none, as the real backend was reported doing.
   * Default `text/event-stream; charset=utf-8`.
   */
  streamContentType: string | null;
  /**
   * Cuts the stream after its output item, before `response.completed`: `end` ends the body
   * there, `reset` drops the connection. Default null, a complete stream.
   */
  streamCut: "end" | "reset" | null;
}

/** The OAuth client id the fake OpenAI auth server accepts (configure connectors with it). */
export const CODEX_FAKE_CLIENT_ID = "app_fake_codex_client";

/**
 * The Codex fake on the shared server: the OpenAI auth server (`/oauth/token`, JSON
 * refresh_token grant with rotation) and the backend under `/backend-api/` (`codex/responses`
 * SSE only, `wham/usage`); see `startFakePlanProviders`.
 */
export function createFakeCodex(setup: PlanFakeSetup): { fake: FakeCodex; route: PlanRoute } {
  const { origin, now } = setup;
  const accountId = "acct-fake-0001";
  const openai = createTokenAuthority({
    prefix: "oai",
    now,
    accessTokenTtlSec: setup.accessTokenTtlSec,
    jwtClaims: { "https://api.openai.com/auth": { chatgpt_account_id: accountId } },
  });
  const oauth = createOauthEndpoint(
    openai,
    `${origin}/oauth/token`,
    CODEX_FAKE_CLIENT_ID,
    (issued) => ({ id_token: issued.accessToken }),
  );
  const codex: FakeCodex = Object.assign(oauth.controls, {
    baseUrl: `${origin}/backend-api/codex`,
    usageUrl: `${origin}/backend-api/wham/usage`,
    accountId,
    fiveHourUsedPercent: 10,
    hasCredits: false,
    exhaustedUntilSec: null as number | null,
    text: "ok",
    toolCall: null as CodexToolCall | null,
    streamContentType: "text/event-stream; charset=utf-8" as string | null,
    streamCut: null as FakeCodex["streamCut"],
  });

  function backend(request: PlanRequest, response: ServerResponse) {
    const { method, path, headers, record, bearer, nowSec } = request;
    if (!bearer || !openai.accepts(bearer)) {
      return json(response, 401, {
        detail: "Could not parse your authentication token. Please try signing in again.",
      });
    }
    if (headers["chatgpt-account-id"] !== accountId) {
      return json(response, 403, { detail: "Workspace account mismatch" });
    }
    const fiveHourResetAtSec = nowSec + 4 * 3600;
    const weeklyResetAtSec = nowSec + 5 * 86_400;
    if (method === "GET" && path === "/backend-api/wham/usage") {
      return json(
        response,
        200,
        codexUsagePayload({
          fiveHourUsedPercent: codex.exhaustedUntilSec ? 100 : codex.fiveHourUsedPercent,
          weeklyUsedPercent: 30,
          fiveHourResetAtSec: codex.exhaustedUntilSec ?? fiveHourResetAtSec,
          weeklyResetAtSec,
          nowSec,
          hasCredits: codex.hasCredits,
        }),
      );
    }
    if (method === "POST" && path === "/backend-api/codex/responses") {
      const credits = {
        hasCredits: codex.hasCredits,
        unlimited: false,
        balance: codex.hasCredits ? "25" : "0",
      };
      if (codex.exhaustedUntilSec !== null) {
        return json(
          response,
          429,
          {
            error: {
              type: "usage_limit_reached",
              message: "You have hit your ChatGPT usage limit (pro plan). Try again later.",
              plan_type: "pro",
              resets_at: codex.exhaustedUntilSec,
              resets_in_seconds: Math.max(0, codex.exhaustedUntilSec - nowSec),
            },
          },
          codexHeaders({
            primary: {
              usedPercent: 100,
              windowMinutes: 300,
              resetAtSec: codex.exhaustedUntilSec,
            },
            secondary: { usedPercent: 30, windowMinutes: 10_080, resetAtSec: weeklyResetAtSec },
            credits,
            nowSec,
          }),
        );
      }
      if (record.stream !== true) {
        return json(response, 400, { detail: "Stream must be set to true" });
      }
      // The backend keeps nothing and answers only with instructions (an empty string will do).
      if (record.store !== false) {
        return json(response, 400, { detail: "Store must be set to false" });
      }
      if (typeof record.instructions !== "string") {
        return json(response, 400, { detail: "Instructions are required" });
      }
      const model = typeof record.model === "string" ? record.model : "gpt-5-codex";
      const frames = codexStreamFrames({
        model,
        tools: record.tools,
        toolCall: codex.toolCall,
        text: echoCredential(codex.text, bearer),
        usage: { inputTokens: 12, outputTokens: 1 },
      });
      response.writeHead(200, {
        ...(codex.streamContentType === null ? {} : { "content-type": codex.streamContentType }),
        "cache-control": "no-cache",
        ...codexHeaders({
          primary: {
            usedPercent: codex.fiveHourUsedPercent,
            windowMinutes: 300,
            resetAtSec: fiveHourResetAtSec,
          },
          secondary: { usedPercent: 30, windowMinutes: 10_080, resetAtSec: weeklyResetAtSec },
          credits,
          nowSec,
        }),
      });
      response.write(frames.created);
      response.write(
        codexSse("codex.rate_limits", {
          type: "codex.rate_limits",
          plan_type: "pro",
          rate_limits: {
            primary: {
              used_percent: codex.fiveHourUsedPercent,
              window_minutes: 300,
              reset_at: fiveHourResetAtSec,
            },
            secondary: { used_percent: 30, window_minutes: 10_080, reset_at: weeklyResetAtSec },
          },
          credits: {
            has_credits: codex.hasCredits,
            unlimited: false,
            balance: credits.balance,
          },
        }),
      );
      for (const frame of frames.output) response.write(frame);
      // Cut before `response.completed`: a body that simply ends, or a connection lost.
      if (codex.streamCut === "end") response.end();
      // Dropped once the frames so far have left, so the client has read them first.
      else if (codex.streamCut === "reset") response.write("\n", () => response.destroy());
      else response.end(frames.completed);
      return;
    }
    return json(response, 404, { detail: "Not Found" });
  }

  async function route(request: PlanRequest, response: ServerResponse) {
    if (request.method === "POST" && request.path === "/oauth/token") {
      await oauth.refresh(request, response);
      return true;
    }
    if (request.path.startsWith("/backend-api/")) {
      backend(request, response);
      return true;
    }
    return false;
  }

  return { fake: codex, route };
}
