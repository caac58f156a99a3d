import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { credentialLabel, type FakePlanProviders, startFakePlanProviders } from "./index";

let clockMs = Date.UTC(2026, 11, 1, 12, 0, 0);
let fakes: FakePlanProviders;

beforeAll(async () => {
  fakes = await startFakePlanProviders({ now: () => clockMs, accessTokenTtlSec: 600 });
});
afterAll(() => fakes.close());

function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

/** The fields the Codex CLI sends in every body, which the backend requires. */
const CODEX_BODY = { input: "hi", store: false, instructions: "" };

describe("fake Codex backend and OpenAI auth server", () => {
  it("streams a Responses answer with x-codex-* headers and a codex.rate_limits event", async () => {
    const login = fakes.codex.issueLogin();
    const response = await post(
      `${fakes.codex.baseUrl}/responses`,
      { ...CODEX_BODY, model: "gpt-5-codex", stream: true },
      { authorization: `Bearer ${login.accessToken}`, "chatgpt-account-id": fakes.codex.accountId },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("x-codex-primary-window-minutes")).toBe("300");
    expect(response.headers.get("x-codex-credits-has-credits")).toBe("False");
    const text = await response.text();
    expect(text).toContain("event: codex.rate_limits");
    expect(text).toContain('"type":"response.completed"');
    expect(fakes.hits.at(-1)!.label).toBe(credentialLabel(login.accessToken));
    expect(JSON.stringify(fakes.hits)).not.toContain(login.accessToken);
  });

  it("refuses a whole request, one that asks to store or has no instructions, and answers a declared tool with a function or custom call", async () => {
    const login = fakes.codex.issueLogin();
    const auth = {
      authorization: `Bearer ${login.accessToken}`,
      "chatgpt-account-id": fakes.codex.accountId,
    };
    const url = `${fakes.codex.baseUrl}/responses`;
    const whole = await post(url, { ...CODEX_BODY, model: "gpt-5-codex", stream: false }, auth);
    expect(whole.status).toBe(400);
    expect(await whole.json()).toEqual({ detail: "Stream must be set to true" });
    const stored = await post(url, { ...CODEX_BODY, store: undefined, stream: true }, auth);
    expect(stored.status).toBe(400);
    expect(await stored.json()).toEqual({ detail: "Store must be set to false" });
    const bare = await post(url, { ...CODEX_BODY, instructions: undefined, stream: true }, auth);
    expect(bare.status).toBe(400);
    expect(await bare.json()).toEqual({ detail: "Instructions are required" });

    const tools = [
      { type: "function", name: "get_weather", parameters: { type: "object" } },
      { type: "custom", name: "apply_patch" },
    ];
    fakes.codex.toolCall = { kind: "function", input: '{"city":"Paris"}' };
    const call = await (await post(url, { ...CODEX_BODY, tools, stream: true }, auth)).text();
    expect(call).toContain('"type":"function_call"');
    expect(call).toContain('"name":"get_weather"');
    expect(call.match(/event: response\.function_call_arguments\.delta/g)).toHaveLength(2);
    expect(call).toContain('"arguments":"{\\"city\\":\\"Paris\\"}"');
    // No tool of that kind declared: the model can only answer in text.
    const text = await (await post(url, { ...CODEX_BODY, stream: true }, auth)).text();
    expect(text).toContain("event: response.output_text.delta");
    expect(text).not.toContain("function_call");

    fakes.codex.toolCall = { kind: "custom", input: "*** Begin Patch\n*** End Patch" };
    const custom = await (await post(url, { ...CODEX_BODY, tools, stream: true }, auth)).text();
    expect(custom).toContain('"type":"custom_tool_call"');
    expect(custom).toContain("event: response.custom_tool_call_input.done");
    fakes.codex.toolCall = null;
  });

  it("can send its stream with no Content-Type, and cut it before response.completed", async () => {
    const login = fakes.codex.issueLogin();
    const auth = {
      authorization: `Bearer ${login.accessToken}`,
      "chatgpt-account-id": fakes.codex.accountId,
    };
    const url = `${fakes.codex.baseUrl}/responses`;
    fakes.codex.streamContentType = null;
    const untyped = await post(url, { ...CODEX_BODY, stream: true }, auth);
    expect(untyped.headers.get("content-type")).toBeNull();
    expect(await untyped.text()).toContain("event: response.completed");
    fakes.codex.streamContentType = "text/event-stream; charset=utf-8";

    fakes.codex.streamCut = "end";
    const ended = await (await post(url, { ...CODEX_BODY, stream: true }, auth)).text();
    expect(ended).toContain("event: response.output_item.done");
    expect(ended).not.toContain("response.completed");
    fakes.codex.streamCut = "reset";
    const reset = await post(url, { ...CODEX_BODY, stream: true }, auth);
    await expect(reset.text()).rejects.toThrow();
    fakes.codex.streamCut = null;
  });

  it("refuses a missing account id, an expired token, and answers usage_limit_reached", async () => {
    const login = fakes.codex.issueLogin();
    const auth = { authorization: `Bearer ${login.accessToken}` };
    const noAccount = await post(`${fakes.codex.baseUrl}/responses`, { stream: true }, auth);
    expect(noAccount.status).toBe(403);
    const withAccount = { ...auth, "chatgpt-account-id": fakes.codex.accountId };
    fakes.codex.exhaustedUntilSec = Math.floor(clockMs / 1000) + 3600;
    const limited = await post(`${fakes.codex.baseUrl}/responses`, { stream: true }, withAccount);
    expect(limited.status).toBe(429);
    expect(await limited.json()).toMatchObject({
      error: { type: "usage_limit_reached", resets_at: fakes.codex.exhaustedUntilSec },
    });
    fakes.codex.exhaustedUntilSec = null;
    clockMs += 601_000;
    const expired = await post(`${fakes.codex.baseUrl}/responses`, { stream: true }, withAccount);
    expect(expired.status).toBe(401);
  });

  it("rotates the refresh token on a JSON refresh_token grant and refuses the old one", async () => {
    const login = fakes.codex.issueLogin();
    const grant = (refreshToken: string) =>
      post(fakes.codex.tokenUrl, {
        grant_type: "refresh_token",
        refresh_token: refreshToken,
        client_id: fakes.codex.clientId,
      });
    const first = await grant(login.refreshToken);
    expect(first.status).toBe(200);
    const tokens = (await first.json()) as Record<string, unknown>;
    expect(tokens.refresh_token).not.toBe(login.refreshToken);
    expect(tokens.expires_in).toBe(600);
    const reused = await grant(login.refreshToken);
    expect(reused.status).toBe(400);
    expect(await reused.json()).toMatchObject({ error: "invalid_grant" });
    const usage = await fetch(fakes.codex.usageUrl, {
      headers: {
        authorization: `Bearer ${tokens.access_token}`,
        "chatgpt-account-id": fakes.codex.accountId,
      },
    });
    expect(await usage.json()).toMatchObject({
      rate_limit: { primary_window: { limit_window_seconds: 18_000 } },
    });
  });
});

describe("fake Copilot", () => {
  const ide = { "editor-version": "planfirst/0.1.0", "copilot-integration-id": "jetbrains-chat" };

  async function exchange(scheme: "token" | "Bearer") {
    const response = await fetch(fakes.copilot.tokenUrl, {
      headers: { authorization: `${scheme} ${fakes.copilot.githubToken}` },
    });
    expect(response.status, scheme).toBe(200);
    expect(response.headers.get("x-github-request-id")).toMatch(/^[0-9A-F:]+$/);
    return (await response.json()) as { token: string; expires_at: number; refresh_in: number };
  }

  function chat(token: string, headers: Record<string, string> = ide) {
    return post(
      `${fakes.copilot.apiBaseUrl}/chat/completions`,
      { model: "gpt-5", messages: [] },
      { authorization: `Bearer ${token}`, ...headers },
    );
  }

  it("exchanges the GitHub token (scheme token or Bearer, as GitHub's API takes both) and serves chat with the session token", async () => {
    const session = await exchange("token");
    expect((await exchange("Bearer")).token).not.toBe(session.token);
    expect(session.expires_at - session.refresh_in).toBe(Math.floor(clockMs / 1000) + 300);
    const wrong = await fetch(fakes.copilot.tokenUrl, {
      headers: { authorization: "token gho_notTheFakesToken" },
    });
    expect(wrong.status).toBe(401);
    const user = await fetch(fakes.copilot.userUrl, {
      headers: { authorization: `token ${fakes.copilot.githubToken}` },
    });
    expect(await user.json()).toMatchObject({ endpoints: { api: fakes.copilot.apiBaseUrl } });
    expect((await chat(session.token)).status).toBe(200);
    const hit = fakes.hits.at(-1)!;
    expect(hit.headers).toMatchObject(ide);
    expect(hit.label).toBe(credentialLabel(session.token));
    fakes.copilot.exhausted = true;
    const spent = await chat(session.token);
    fakes.copilot.exhausted = false;
    expect(spent.status).toBe(402);
    expect(await spent.json()).toEqual({
      error: { message: "You have no quota", code: "quota_exceeded" },
    });
  });

  it("refuses inference without Editor-Version or with an integration id GitHub does not know (plain text), and a malformed body (JSON)", async () => {
    const { token } = await exchange("token");
    const missing = await chat(token, { "copilot-integration-id": "vscode-chat" });
    expect(missing.status).toBe(400);
    expect(missing.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(await missing.text()).toBe("bad request: missing Editor-Version header for IDE auth\n");
    const unknown = await chat(token, { ...ide, "copilot-integration-id": "planfirst" });
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toBe("bad request: unknown Copilot-Integration-Id\n");
    for (const body of [{ messages: [{ role: "robot", content: "hi" }] }, { temperature: 7 }]) {
      const malformed = await post(
        `${fakes.copilot.apiBaseUrl}/chat/completions`,
        { model: "gpt-5", messages: [], ...body },
        { authorization: `Bearer ${token}`, ...ide },
      );
      expect(malformed.status).toBe(400);
      expect(await malformed.json()).toEqual({
        error: { message: "invalid request body", code: "invalid_request_body" },
      });
    }
    // A session token needs no integration id: VS Code's own extension sends none.
    expect((await chat(token, { "editor-version": "vscode/1.99.0" })).status).toBe(200);
    // The refusal is recorded with what was sent.
    expect(fakes.hits.at(-4)!.headers["copilot-integration-id"]).toBe("planfirst");
  });

  it("takes the GitHub token itself at inference, as the Copilot CLI sends it, only with an integration id", async () => {
    const github = fakes.copilot.githubToken;
    const cli = {
      "editor-version": "copilot/1.0.102",
      "copilot-integration-id": "copilot-developer-cli",
    };
    expect((await chat(github, cli)).status).toBe(200);
    const models = await fetch(`${fakes.copilot.apiBaseUrl}/models`, {
      headers: { authorization: `Bearer ${github}`, ...cli },
    });
    expect(await models.json()).toMatchObject({
      data: [{ id: "gpt-4.1", policy: { state: "enabled" } }, {}, {}],
    });
    const bare = await chat(github, { "editor-version": "copilot/1.0.102" });
    expect(bare.status).toBe(400);
    expect(await bare.text()).toBe("bad request: missing required Copilot-Integration-Id header\n");
    expect((await chat("gho_notTheFakesToken", cli)).status).toBe(401);
  });
});

describe("fake z.ai and Kimi", () => {
  it("z.ai: usage with the bare key, a bad key as code 401 in a 200, and a 1308 with a Beijing reset", async () => {
    const usage = await fetch(fakes.zai.usageUrl, { headers: { authorization: fakes.zai.apiKey } });
    expect(await usage.json()).toMatchObject({ success: true, data: { level: "pro" } });
    const bad = await fetch(fakes.zai.usageUrl, { headers: { authorization: "nope" } });
    expect(bad.status).toBe(200);
    expect(await bad.json()).toMatchObject({ code: 401, success: false });
    fakes.zai.exhaustedUntilBeijing = "2026-12-01 23:00:00";
    const limited = await post(
      `${fakes.zai.baseUrl}/chat/completions`,
      { model: "glm-4.6", messages: [] },
      { authorization: `Bearer ${fakes.zai.apiKey}` },
    );
    fakes.zai.exhaustedUntilBeijing = null;
    expect(limited.status).toBe(429);
    expect(await limited.json()).toMatchObject({ error: { code: "1308" } });
  });

  it("Kimi: a form-encoded refresh rotates, and usages come with string numbers", async () => {
    const login = fakes.kimi.issueLogin();
    const refreshed = await fetch(fakes.kimi.tokenUrl, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: login.refreshToken,
        client_id: fakes.kimi.clientId,
      }),
    });
    const tokens = (await refreshed.json()) as { access_token: string; refresh_token: string };
    expect(tokens.refresh_token).not.toBe(login.refreshToken);
    const usage = await fetch(fakes.kimi.usageUrl, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(await usage.json()).toMatchObject({
      usage: { limit: "2048", used: "512" },
      limits: [{ window: { duration: 300 }, detail: { limit: "100" } }],
    });
    const previous = await fetch(fakes.kimi.usageUrl, {
      headers: { authorization: `Bearer ${login.accessToken}` },
    });
    // A rotated-out access token lives until its own expiry, as on the real server.
    expect(previous.status).toBe(200);
    fakes.kimi.expireAccessTokens();
    const expired = await fetch(fakes.kimi.usageUrl, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(expired.status).toBe(401);
  });
});
