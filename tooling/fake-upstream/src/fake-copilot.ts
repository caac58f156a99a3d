import type { ServerResponse } from "node:http";
import { copilotIdeHeaderRefusal } from "./copilot-ide-headers";
import { githubRequestId } from "./ids";
import { copilotModelsPayload, copilotUserPayload } from "./plan-payloads";
import {
  chatCompletion,
  json,
  type PlanFakeSetup,
  type PlanRequest,
  type PlanRoute,
} from "./plan-route";
import { createTokenAuthority } from "./token-authority";

/** The Copilot token exchange, user endpoint and inference API. */
export interface FakeCopilot {
  /** `GET copilot_internal/v2/token`. */
  tokenUrl: string;
  /** `GET copilot_internal/user`. */
  userUrl: string;
  /**
   * The GitHub API origin (`api.github.com` of the fake): what the Copilot CLI's
   * `COPILOT_DEBUG_GITHUB_API_URL` points at.
   */
  githubApiUrl: string;
  /** The inference base announced in `endpoints.api`: POST `/chat/completions`, GET `/models`. */
  apiBaseUrl: string;
  /** Model ids `GET /models` lists; default `gpt-4.1`, `gpt-5-mini`, `claude-sonnet-4.5`. */
  models: string[];
  /** The GitHub token the fake accepts. */
  githubToken: string;
  /** Exchanges so far. */
  readonly exchanges: number;
  /** Revokes every Copilot session token so far. */
  expireSessionTokens(): void;
  /** Premium requests left, percent; default 80. */
  premiumPercentRemaining: number;
  /** When true, chat completions answer 402 `quota_exceeded`. */
  exhausted: boolean;
  /** `quota_reset_date_utc` reported; default the 1st of next month. */
  resetDateUtc: string;
}

/** A plain-text answer, as Go's `http.Error` writes one (GitHub's Copilot API refusals). */
function plainText(
  response: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
) {
  response.writeHead(status, {
    "content-type": "text/plain; charset=utf-8",
    "x-content-type-options": "nosniff",
    "content-length": String(Buffer.byteLength(text)),
    ...headers,
  });
  response.end(text);
}

const CHAT_ROLES = new Set(["system", "developer", "user", "assistant", "tool", "function"]);

/**
 * True when a chat body passes the part of Copilot's schema check the fake models: `messages` an
 * array of messages with a chat role, and `temperature`, when set, a number from 0 to 2.
 */
function isValidChatBody(record: Record<string, unknown>): boolean {
  const { messages, temperature } = record;
  if (temperature !== undefined && temperature !== null) {
    if (typeof temperature !== "number" || temperature < 0 || temperature > 2) return false;
  }
  return (
    Array.isArray(messages) &&
    messages.every(
      (message) =>
        typeof message === "object" &&
        message !== null &&
        CHAT_ROLES.has((message as Record<string, unknown>).role as string),
    )
  );
}

function firstOfNextMonthUtc(nowMs: number): string {
  const now = new Date(nowMs);
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
}

/**
 * The Copilot fake on the shared server: the GitHub API's `copilot_internal/v2/token` and
 * `copilot_internal/user`, and `/copilot/chat/completions` and `/copilot/models` with the IDE
 * headers they require; see `startFakePlanProviders`.
 */
export function createFakeCopilot(setup: PlanFakeSetup): { fake: FakeCopilot; route: PlanRoute } {
  const { origin, now } = setup;
  const copilotSessions = createTokenAuthority({
    prefix: "tid=fake",
    now,
    accessTokenTtlSec: 1800,
  });
  let exchanges = 0;
  const copilot: FakeCopilot = {
    tokenUrl: `${origin}/copilot_internal/v2/token`,
    userUrl: `${origin}/copilot_internal/user`,
    githubApiUrl: origin,
    apiBaseUrl: `${origin}/copilot`,
    models: ["gpt-4.1", "gpt-5-mini", "claude-sonnet-4.5"],
    githubToken: "gho_fakeGithubToken0001",
    get exchanges() {
      return exchanges;
    },
    expireSessionTokens: () => copilotSessions.expireAccessTokens(),
    premiumPercentRemaining: 80,
    exhausted: false,
    resetDateUtc: firstOfNextMonthUtc(now()),
  };

  // The exchange and the user endpoint are the GitHub API, which takes the GitHub token as
  // `token …` or `Bearer …` alike (IDE extensions send the first, the language server and the
  // Copilot CLI the second); every GitHub answer carries an `x-github-request-id`.
  function githubApi(request: PlanRequest, response: ServerResponse) {
    const { path, credential, nowSec } = request;
    const github = { "x-github-request-id": githubRequestId() };
    const scheme = credential.scheme?.toLowerCase();
    if ((scheme !== "token" && scheme !== "bearer") || credential.value !== copilot.githubToken) {
      return json(
        response,
        401,
        { message: "Bad credentials", documentation_url: "https://docs.github.com/rest" },
        github,
      );
    }
    if (path === "/copilot_internal/user") {
      return json(
        response,
        200,
        copilotUserPayload({
          apiBase: copilot.apiBaseUrl,
          premiumPercentRemaining: copilot.exhausted ? 0 : copilot.premiumPercentRemaining,
          resetDateUtc: copilot.resetDateUtc,
        }),
        github,
      );
    }
    exchanges += 1;
    const session = copilotSessions.issue();
    return json(
      response,
      200,
      {
        token: session.accessToken,
        expires_at: session.expiresAtSec,
        refresh_in: Math.max(0, session.expiresAtSec - nowSec - 300),
        endpoints: { api: copilot.apiBaseUrl },
        sku: "plus_monthly_subscriber_quota",
        chat_enabled: true,
      },
      github,
    );
  }

  // Inference: a session token from the exchange, or the GitHub token itself as the Copilot CLI
  // sends it, and the IDE headers the real API requires (its refusals are plain text, not JSON).
  function inference(request: PlanRequest, response: ServerResponse) {
    const { path, headers, record, bearer } = request;
    const github = { "x-github-request-id": githubRequestId() };
    const githubToken = bearer !== null && bearer === copilot.githubToken;
    if (!bearer || !(githubToken || copilotSessions.accepts(bearer))) {
      return json(
        response,
        401,
        { error: { message: "unauthorized: token expired", code: "unauthorized" } },
        github,
      );
    }
    const refusal = copilotIdeHeaderRefusal(headers, githubToken);
    if (refusal) return plainText(response, 400, refusal, github);
    if (path === "/copilot/models") {
      return json(response, 200, copilotModelsPayload(copilot.models), github);
    }
    if (!isValidChatBody(record)) {
      return json(
        response,
        400,
        { error: { message: "invalid request body", code: "invalid_request_body" } },
        github,
      );
    }
    if (copilot.exhausted) {
      return json(
        response,
        402,
        { error: { message: "You have no quota", code: "quota_exceeded" } },
        github,
      );
    }
    return chatCompletion(response, record);
  }

  async function route(request: PlanRequest, response: ServerResponse) {
    const { method, path } = request;
    if (path === "/copilot_internal/v2/token" || path === "/copilot_internal/user") {
      githubApi(request, response);
      return true;
    }
    const copilotInference =
      (path === "/copilot/chat/completions" && method === "POST") ||
      (path === "/copilot/models" && method === "GET");
    if (copilotInference) {
      inference(request, response);
      return true;
    }
    return false;
  }

  return { fake: copilot, route };
}
