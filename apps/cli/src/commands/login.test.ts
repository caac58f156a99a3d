import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { startFakePlanProviders } from "@planfirst/fake-upstream";
import { createConnectorRegistry, createSqliteCredentialPersistence } from "@planfirst/gateway";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../program";

let home: string;
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), "planfirst-login-"));
});
afterAll(() => rm(home, { recursive: true, force: true }));

function capture() {
  let out = "";
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      out += chunk.toString();
      callback();
    },
  });
  return { stream, text: () => out };
}

async function login(args: string[], env: Record<string, string> = { HOME: home }) {
  const stdout = capture();
  const stderr = capture();
  const exitCode = await runCli(["node", "planfirst", "login", "import", ...args], {
    stdout: stdout.stream,
    stderr: stderr.stream,
    env,
    cwd: home,
    now: () => Date.UTC(2026, 11, 1, 9),
  });
  return { exitCode, out: stdout.text() + stderr.text() };
}

async function put(path: string, value: unknown) {
  await mkdir(join(home, path, ".."), { recursive: true });
  await writeFile(join(home, path), JSON.stringify(value, null, 2));
}

function jwt(claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  return `${part({ alg: "RS256", typ: "JWT" })}.${part(claims)}.c2lnbmF0dXJl`;
}

describe("planfirst login import", () => {
  it("imports the Claude Code login into the SQLite store without printing a token", async () => {
    await put(".claude/.credentials.json", {
      claudeAiOauth: {
        accessToken: "sk-ant-oat01-secret-access",
        refreshToken: "sk-ant-ort01-secret-refresh",
        expiresAt: Date.UTC(2026, 11, 1, 17),
        scopes: ["user:inference", "user:profile"],
        subscriptionType: "max",
      },
    });
    const store = join(home, "claude.db");
    const { exitCode, out } = await login(["claude", "--store", store]);
    expect(exitCode).toBe(0);
    expect(out).toContain("login:claude");
    expect(out).toContain("plan max");
    expect(out).not.toMatch(/secret-(access|refresh)/);
    const persistence = createSqliteCredentialPersistence(store);
    expect(await persistence.read("login:claude")).toEqual({
      provider: "claude",
      accessToken: "sk-ant-oat01-secret-access",
      refreshToken: "sk-ant-ort01-secret-refresh",
      expiresAtMs: Date.UTC(2026, 11, 1, 17),
      fields: { subscriptionType: "max", scopes: "user:inference user:profile" },
      updatedAtMs: Date.UTC(2026, 11, 1, 9),
    });
    persistence.close();
  });

  it("imports the Copilot GitHub token from apps.json, and Gemini's oauth_creds.json", async () => {
    await put(".config/github-copilot/apps.json", {
      "github.com:Iv1.b507a08c87ecfe98": {
        user: "octo",
        oauth_token: "ghu_secretGithubToken",
        githubAppId: "Iv1.b507a08c87ecfe98",
      },
    });
    await put(".gemini/oauth_creds.json", {
      access_token: "ya29.secret-access",
      refresh_token: "1//secret-refresh",
      scope: "https://www.googleapis.com/auth/cloud-platform",
      token_type: "Bearer",
      expiry_date: Date.UTC(2026, 11, 1, 10),
    });
    const store = join(home, "many.db");
    const copilot = await login(["copilot", "--store", store, "--name", "seat"]);
    const gemini = await login(["gemini", "--store", store]);
    expect([copilot.exitCode, gemini.exitCode]).toEqual([0, 0]);
    expect(copilot.out + gemini.out).not.toMatch(/secret/);
    const persistence = createSqliteCredentialPersistence(store);
    expect(await persistence.keys()).toEqual(["login:gemini", "login:seat"]);
    expect(await persistence.read("login:seat")).toMatchObject({
      provider: "github-copilot",
      accessToken: null,
      refreshToken: "ghu_secretGithubToken",
      fields: { githubUser: "octo" },
    });
    expect(await persistence.read("login:gemini")).toMatchObject({
      provider: "gemini-code-assist",
      refreshToken: "1//secret-refresh",
      expiresAtMs: Date.UTC(2026, 11, 1, 10),
    });
    persistence.close();
  });

  it("a missing or incomplete file is a clear error that names the file, never its content", async () => {
    const empty = await mkdtemp(join(tmpdir(), "planfirst-login-empty-"));
    const missingFile = await login(["codex", "--store", join(empty, "s.db")], { HOME: empty });
    expect(missingFile.exitCode).toBe(1);
    expect(missingFile.out).toContain("~/.codex/auth.json: not found");
    await mkdir(join(empty, ".codex"));
    await writeFile(
      join(empty, ".codex", "auth.json"),
      JSON.stringify({ OPENAI_API_KEY: "sk-proj-secret", tokens: null }),
    );
    const apiKeyOnly = await login(["codex", "--store", join(empty, "s.db")], { HOME: empty });
    expect(apiKeyOnly.exitCode).toBe(1);
    expect(apiKeyOnly.out).toContain("tokens.refresh_token");
    expect(apiKeyOnly.out).not.toContain("sk-proj-secret");
    const unknown = await login(["cursor", "--store", join(empty, "s.db")], { HOME: empty });
    expect(unknown.exitCode).toBe(2);
    await rm(empty, { recursive: true, force: true });
  });

  it("an imported Codex login serves through the Codex connector with no other credential", async () => {
    const fakes = await startFakePlanProviders();
    try {
      const issued = fakes.codex.issueLogin();
      await put(".codex/auth.json", {
        OPENAI_API_KEY: null,
        tokens: {
          id_token: jwt({ email: "dev@example.com" }),
          access_token: issued.accessToken,
          refresh_token: issued.refreshToken,
          account_id: fakes.codex.accountId,
        },
        last_refresh: "2026-12-01T08:00:00Z",
      });
      const store = join(home, "codex.db");
      const { exitCode, out } = await login(["codex", "--store", store]);
      expect(exitCode).toBe(0);
      expect(out).toContain(`ChatGPT account ${fakes.codex.accountId}`);
      expect(out).not.toContain(issued.refreshToken);
      const persistence = createSqliteCredentialPersistence(store);
      const connector = createConnectorRegistry().create(
        {
          id: "chatgpt-pro",
          provider: "codex",
          authType: "oauth",
          baseUrl: fakes.codex.baseUrl,
          credential: {
            login: "codex",
            tokenUrl: fakes.codex.tokenUrl,
            clientId: fakes.codex.clientId,
          },
        },
        { persistence, now: Date.now },
      );
      const prepared = await connector.prepare({ model: "gpt-5-codex", stream: true });
      const response = await fetch(prepared.url, {
        method: "POST",
        headers: prepared.headers,
        // A body as the Codex CLI sends it: the backend requires store: false and instructions.
        body: JSON.stringify({
          model: "gpt-5-codex",
          input: "hi",
          instructions: "",
          store: false,
          stream: true,
        }),
      });
      expect(response.status).toBe(200);
      await response.text();
      expect(fakes.codex.tokenRequests).toBe(0);
      persistence.close();
    } finally {
      await fakes.close();
    }
  });
});
