import { describe, expect, it } from "vitest";
import missingEditorVersion from "./__fixtures__/copilot-400-missing-editor-version.json";
import unknownIntegrationId from "./__fixtures__/copilot-400-unknown-integration-id.json";
import quotaExceeded from "./__fixtures__/copilot-402-quota-exceeded.json";
import modelLimited from "./__fixtures__/copilot-429-retry-after.json";
import weekly from "./__fixtures__/copilot-429-weekly.json";
import { parseCopilotResponse } from "./copilot";

const observedAtMs = Date.parse("2026-10-21T07:00:00.000Z");

describe("parseCopilotResponse", () => {
  it("402 quota_exceeded: premium window spent, reset left to the quota poller", () => {
    const { windows, failure } = parseCopilotResponse({ ...quotaExceeded, observedAtMs });
    expect(windows).toEqual([]);
    expect(failure).toEqual({
      kind: "window_exhausted",
      retryAt: null,
      resetAt: null,
      windowId: "premium_interactions",
      code: "quota_exceeded",
    });
  });

  it("429 user_weekly_rate_limited: window_exhausted until 'try again in 58 hours'", () => {
    const { failure } = parseCopilotResponse({ ...weekly, observedAtMs });
    expect(failure).toEqual({
      kind: "window_exhausted",
      retryAt: "2026-10-23T17:00:00.000Z",
      resetAt: "2026-10-23T17:00:00.000Z",
      windowId: "weekly",
      code: "user_weekly_rate_limited",
    });
  });

  it("429 user_model_rate_limited: scoped to the model, retry at the HTTP-date", () => {
    const { failure } = parseCopilotResponse({
      ...modelLimited,
      observedAtMs,
      model: "claude-sonnet-4.5",
    });
    expect(failure).toEqual({
      kind: "rate_limited",
      retryAt: "2026-10-21T07:28:00.000Z",
      resetAt: null,
      scope: { model: "claude-sonnet-4.5" },
      code: "user_model_rate_limited",
    });
  });

  it("other 402 codes are hard stops; 401/403 need re-auth", () => {
    const spend = parseCopilotResponse({
      status: 402,
      headers: {},
      body: { error: { code: "additional_spend_limit_reached", message: "..." } },
      observedAtMs,
    });
    expect(spend.failure?.kind).toBe("credits_exhausted");
    expect(parseCopilotResponse({ status: 403, headers: {}, observedAtMs }).failure?.kind).toBe(
      "auth_invalid",
    );
  });

  it("a 400 refusing the IDE headers is the connection's misconfiguration, named in fixed words", () => {
    expect(parseCopilotResponse({ ...missingEditorVersion, observedAtMs }).failure).toEqual({
      kind: "misconfigured",
      retryAt: null,
      resetAt: null,
      code: "missing_editor_version",
      detail: "Copilot refused the request: missing Editor-Version header",
    });
    expect(parseCopilotResponse({ ...unknownIntegrationId, observedAtMs }).failure).toMatchObject({
      kind: "misconfigured",
      code: "unknown_integration_id",
      detail: "Copilot refused the request: unknown Copilot-Integration-Id header",
    });
    // The same words in a JSON envelope read the same.
    const json = parseCopilotResponse({
      status: 400,
      headers: {},
      body: { error: { message: "bad request: missing required Copilot-Integration-Id header" } },
      observedAtMs,
    });
    expect(json.failure?.code).toBe("missing_integration_id");
  });

  it("a client's own bad request is no failure of the connection", () => {
    const body = { error: { message: "messages: field required", code: "invalid_request_body" } };
    expect(
      parseCopilotResponse({ status: 400, headers: {}, body, observedAtMs }).failure,
    ).toBeUndefined();
  });
});
