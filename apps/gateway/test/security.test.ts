import { serverError, unauthorized } from "@planfirst/fake-upstream";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../src/config/load-config";
import { ConfigError } from "../src/errors";
import { startServer } from "../src/server";
import { STANDARD_FAKES, standardConfig, TEST_ENV } from "./fixtures";
import { chatBody, post, useTestBed } from "./harness";

const ADMIN_KEY = "pf-admin-secret-value-555";

const SECRETS = [
  TEST_ENV.PLAN_TOKEN,
  TEST_ENV.ROUTER_KEY,
  TEST_ENV.PREMIUM_KEY,
  TEST_ENV.CLIENT_KEY,
  ADMIN_KEY,
];

const bed = useTestBed(STANDARD_FAKES, {
  gateway: (fakes) => ({
    config: standardConfig(fakes, {
      server: {
        apiKeys: [
          "env:CLIENT_KEY",
          { key: "env:ROUTER_ONLY_KEY", id: "router-only", connections: ["openrouter"] },
          { key: "env:ADMIN_KEY", id: "ops", role: "admin" },
        ],
        bodyLimitBytes: 4096,
      },
    }),
    env: { ...TEST_ENV, ROUTER_ONLY_KEY: "pf-router-only-444", ADMIN_KEY },
  }),
});

const auth = { authorization: `Bearer ${TEST_ENV.CLIENT_KEY}` };
const admin = { authorization: `Bearer ${ADMIN_KEY}` };

describe("client keys, limits and secrets", () => {
  it("every endpoint but /healthz needs a key, as Bearer or x-api-key", async () => {
    expect((await fetch(`${bed.harness.url}/healthz`)).status).toBe(200);
    for (const path of [
      "/v1/models",
      "/metrics",
      "/v1/status",
      "/",
      "/v1/ladder?model=auto/thrifty",
    ]) {
      expect((await fetch(`${bed.harness.url}${path}`)).status).toBe(401);
      expect((await fetch(`${bed.harness.url}${path}`, { headers: admin })).status).toBe(200);
    }
    // Every key's spend and every connection are in /metrics: a client key may not read them.
    const metrics = await fetch(`${bed.harness.url}/metrics`, { headers: auth });
    expect(metrics.status).toBe(403);
    const refusal = (await metrics.json()) as { error: { code: string; message: string } };
    expect(refusal.error.code).toBe("admin_key_required");
    expect(refusal.error.message).toContain('"CLIENT_KEY"');
    const viaHeader = await fetch(`${bed.harness.url}/v1/models`, {
      headers: { "x-api-key": TEST_ENV.CLIENT_KEY },
    });
    expect(viaHeader.status).toBe(200);
    const wrong = await post(bed.harness.url, "/v1/messages", chatBody("auto/thrifty"), {
      "x-api-key": `${TEST_ENV.CLIENT_KEY}x`,
    });
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as { type: string }).type).toBe("error");
  });

  it("a key limited to some connections never reaches the others", async () => {
    bed.fakes.plan.reset();
    const response = await post(bed.harness.url, "/v1/chat/completions", chatBody("auto/thrifty"), {
      authorization: "Bearer pf-router-only-444",
    });
    expect(response.headers.get("x-planfirst-connection")).toBe("openrouter");
    expect(bed.fakes.plan.completionHits()).toHaveLength(0);
    const strict = await post(
      bed.harness.url,
      "/v1/chat/completions",
      chatBody("auto/subscription"),
      {
        authorization: "Bearer pf-router-only-444",
      },
    );
    expect(strict.status).toBe(429);
  });

  it("a key limited to some connections sees only those in /v1/status, /v1/ladder and the page", async () => {
    const limited = { authorization: "Bearer pf-router-only-444" };
    const status = (await (
      await fetch(`${bed.harness.url}/v1/status`, { headers: limited })
    ).json()) as {
      connections: { id: string }[];
    };
    expect(status.connections.map((c) => c.id)).toEqual(["openrouter"]);
    const full = (await (
      await fetch(`${bed.harness.url}/v1/status`, { headers: auth })
    ).json()) as {
      connections: { id: string }[];
    };
    expect(full.connections.map((c) => c.id).sort()).toEqual([
      "claude-plan",
      "openrouter",
      "openrouter-premium",
    ]);

    const ladder = await (
      await fetch(`${bed.harness.url}/v1/ladder?model=auto/thrifty`, { headers: limited })
    ).text();
    expect(ladder).toContain("openrouter");
    expect(ladder).not.toContain("claude-plan");
    expect(ladder).not.toContain("openrouter-premium");

    const page = await (await fetch(`${bed.harness.url}/`, { headers: limited })).text();
    expect(page).not.toContain("claude-plan");
    expect(page).not.toContain("openrouter-premium");
  });

  it("/v1/status lists every cooldown in force, a transient one included", async () => {
    bed.fakes.pricey.script([serverError("openai")]);
    const answer = await post(
      bed.harness.url,
      "/v1/chat/completions",
      chatBody("anthropic/claude-sonnet-4.5"),
      auth,
    );
    expect(answer.status).toBe(502);
    const status = (await (
      await fetch(`${bed.harness.url}/v1/status`, { headers: auth })
    ).json()) as {
      connections: {
        id: string;
        cooldownUntil: string | null;
        cooldowns: { kind: string; until: string }[];
      }[];
    };
    const premium = status.connections.find((c) => c.id === "openrouter-premium")!;
    expect(premium.cooldowns).toHaveLength(1);
    expect(premium.cooldowns[0]!.kind).toBe("overloaded");
    expect(premium.cooldownUntil).toBe(premium.cooldowns[0]!.until);
  });

  it("a body over the limit is refused with 413", async () => {
    const big = chatBody("auto/thrifty", {
      messages: [{ role: "user", content: "x".repeat(10_000) }],
    });
    const response = await post(bed.harness.url, "/v1/chat/completions", big, auth);
    expect(response.status).toBe(413);
  });

  it("401/403 from an upstream cools that connection and the request falls through", async () => {
    bed.fakes.plan.reset();
    bed.fakes.plan.script([unauthorized("anthropic")]);
    const response = await post(
      bed.harness.url,
      "/v1/chat/completions",
      chatBody("claude-sonnet-4-5"),
      auth,
    );
    // The plan is the only connection serving this model: every target failed.
    expect(response.status).toBe(502);
    const body = (await response.json()) as { error: { attempts: { outcome: string }[] } };
    expect(body.error.attempts[0]!.outcome).toBe("auth_invalid");
    const status = (await (
      await fetch(`${bed.harness.url}/v1/status`, { headers: auth })
    ).json()) as {
      connections: { id: string; cooldownUntil: string | null }[];
    };
    expect(status.connections.find((c) => c.id === "claude-plan")!.cooldownUntil).not.toBeNull();
  });

  it("no credential appears in logs, error bodies, /metrics, /v1/ladder or /v1/status", async () => {
    const outputs: string[] = [];
    for (const model of ["auto/thrifty", "auto/subscription", "claude-sonnet-4-5", "nope"]) {
      const response = await post(bed.harness.url, "/v1/chat/completions", chatBody(model), auth);
      outputs.push(await response.text());
    }
    for (const path of [
      "/metrics",
      "/v1/status",
      "/",
      "/v1/ladder?model=auto/thrifty",
      "/v1/ladder?model=auto/subscription",
    ]) {
      for (const headers of [auth, admin]) {
        outputs.push(await (await fetch(`${bed.harness.url}${path}`, { headers })).text());
      }
    }
    bed.harness.server.gateway.deps.logger.info(
      {
        headers: {
          authorization: `Bearer ${TEST_ENV.CLIENT_KEY}`,
          "x-api-key": TEST_ENV.ROUTER_KEY,
        },
        credential: TEST_ENV.PLAN_TOKEN,
      },
      "redaction probe",
    );
    const everything = `${outputs.join("\n")}\n${bed.harness.logs.join("")}`;
    expect(bed.harness.logs.join("")).toContain("redaction probe");
    for (const secret of SECRETS) expect(everything).not.toContain(secret);
  });

  it("refuses to bind to a non-loopback address when no client keys are configured", async () => {
    const config = parseConfig({
      server: { host: "0.0.0.0", port: 0 },
      storage: { driver: "memory" },
    });
    await expect(
      startServer({ config, print: () => undefined, pollUsage: false }),
    ).rejects.toBeInstanceOf(ConfigError);
  });
});
