import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { type FakeGeminiCodeAssist, startFakeGeminiCodeAssist } from "@planfirst/fake-upstream";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CODE_ASSIST_METADATA } from "../src/connectors/gemini-code-assist/code-assist-api";
import { binPath, runCli, tempDir } from "./cli-runner";

// The Gemini CLI 0.61.0 itself (`gemini -p`), unchanged, against the Code Assist fake on
// loopback (CODE_ASSIST_ENDPOINT), for a login that never set Code Assist up: the fake's
// onboarding is checked against the real client's flow, and the request the gateway sends to
// onboard a login against the one the CLI sends.
//
// The login is handed over as GOOGLE_GENAI_USE_GCA + GOOGLE_CLOUD_ACCESS_TOKEN (the CLI's
// "Login with Google" with a token it is given): a login cached in ~/.gemini/oauth_creds.json
// is first checked at https://oauth2.googleapis.com/tokeninfo, which has no override. Every
// other host goes to a proxy on loopback that refuses it, and which records what was asked.

const gemini = binPath("gemini");
const temps: { remove(): void }[] = [];
let fake: FakeGeminiCodeAssist;
let proxy: Server;
let proxyUrl: string;
const proxied: string[] = [];

beforeAll(async () => {
  fake = await startFakeGeminiCodeAssist({ setUp: false });
  proxy = createServer((socket) => {
    socket.once("data", (head) => {
      proxied.push(String(head).split("\r\n")[0] ?? "");
      socket.end("HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n");
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const address = proxy.address();
  proxyUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
});
afterAll(async () => {
  await fake.close();
  await new Promise<void>((resolve) => proxy.close(() => resolve()));
});
afterEach(() => {
  for (const temp of temps.splice(0)) temp.remove();
});

function geminiHome(): string {
  const home = tempDir("planfirst-gemini-home-");
  temps.push(home);
  mkdirSync(join(home.path, ".gemini"));
  const settings = {
    security: { auth: { selectedType: "oauth-personal" } },
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
  };
  writeFileSync(join(home.path, ".gemini", "settings.json"), JSON.stringify(settings));
  return home.path;
}

const missing = !existsSync(gemini);

describe.skipIf(missing)(
  missing
    ? "Gemini CLI (skipped: apps/gateway/node_modules/.bin/gemini is missing; run pnpm install)"
    : "Gemini CLI 0.61.0 against the Code Assist fake",
  () => {
    it("onboards a login that never set Code Assist up, polls the operation, and prints the answer", async () => {
      fake.account.onboardingPendingAnswers = 1; // one poll: the CLI waits 5 s before it
      const cwd = tempDir("planfirst-gemini-cwd-");
      temps.push(cwd);
      const run = await runCli(gemini, ["-m", "gemini-2.5-pro", "-p", "say hi"], {
        cwd: cwd.path,
        timeoutMs: 60_000,
        env: {
          HOME: geminiHome(),
          CODE_ASSIST_ENDPOINT: fake.origin,
          GOOGLE_GENAI_USE_GCA: "true",
          GOOGLE_CLOUD_ACCESS_TOKEN: fake.issueAccessToken().accessToken,
          GEMINI_CLI_TRUST_WORKSPACE: "true",
          GEMINI_CLI_NO_RELAUNCH: "true",
          HTTPS_PROXY: proxyUrl,
          HTTP_PROXY: proxyUrl,
          NO_PROXY: "127.0.0.1",
        },
      });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout.trim()).toBe("Hello from Gemini.");
      // Set up at the first try: a failed setup shows here and is retried from loadCodeAssist.
      expect(run.stderr).not.toContain("Error authenticating");

      const hit = (path: string) => fake.hits.find((h) => h.path === path);
      expect(hit("/v1internal:loadCodeAssist")?.body).toEqual({ metadata: CODE_ASSIST_METADATA });
      // The request the gateway's connector sends to onboard a login, byte for byte in content.
      expect(hit("/v1internal:onboardUser")?.body).toEqual({
        tierId: "free-tier",
        metadata: CODE_ASSIST_METADATA,
      });
      const order = fake.hits.map((h) => h.path.replace(/operations\/\S+$/, "operations/…"));
      expect(order.slice(0, 3)).toEqual([
        "/v1internal:loadCodeAssist",
        "/v1internal:onboardUser",
        "/v1internal/operations/…",
      ]);
      // The project came from the operation's result, not from asking loadCodeAssist again.
      expect(order.filter((path) => path === "/v1internal:loadCodeAssist")).toHaveLength(1);
      const generation = hit("/v1internal:streamGenerateContent");
      expect(generation?.query).toBe("alt=sse");
      expect(generation?.body).toMatchObject({ model: "gemini-2.5-pro", project: fake.project });
      expect(generation?.headers["user-agent"]).toMatch(/^GeminiCLI-[a-z]+\/0\.61\.0\//);
      expect(fake.account.setUp).toBe(true);
      // Beyond loopback it only tried to read the account's e-mail (refused; it carries on).
      expect(proxied).toEqual(["CONNECT www.googleapis.com:443 HTTP/1.1"]);
    }, 90_000);
  },
);
