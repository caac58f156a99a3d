import { credentialLabel } from "@planfirst/fake-upstream";
import { describe, expect, it } from "vitest";
import { PLANFIRST_USER_AGENT } from "../src/connectors/connector";
import { COPILOT_DEFAULT_INTEGRATION_ID } from "../src/connectors/github-copilot/github-copilot-connector";
import type { ModelExplanation } from "../src/routing/explain-model";
import type { GatewayStatus } from "../src/status/gateway-status";
import { hour, served, usePlanBed } from "./connectors-plans-helpers";
import { getJson } from "./harness";

// The GitHub Copilot connector against its fake on loopback, through a real gateway: the token
// exchange, the IDE headers Copilot requires, the usage poll and its quota refusals.

const bed = usePlanBed();
const { gateway, completionHits, zaiConnection } = bed;

function copilotConnection(headers?: Record<string, string>) {
  return {
    id: "copilot",
    provider: "github-copilot",
    authType: "oauth",
    protocol: "openai" as const,
    usageUrl: bed.plans.copilot.userUrl,
    credential: { githubToken: "env:GH_TOKEN", tokenUrl: bed.plans.copilot.tokenUrl },
    models: ["gpt-4.1"],
    timeoutMs: 5_000,
    ...(headers ? { headers } : {}),
  };
}

describe("GitHub Copilot seat", () => {
  it("is served on rung 0 with an exchanged session token, never the GitHub token", async () => {
    const harness = await gateway(
      [copilotConnection()],
      { GH_TOKEN: bed.plans.copilot.githubToken },
      ["github-copilot"],
    );
    const exchangesBefore = bed.plans.copilot.exchanges;
    for (const model of ["gpt-4.1", "auto/subscription", "auto/thrifty"]) {
      const answer = await served(harness, model);
      expect(answer.response.status, model).toBe(200);
      expect(answer.rung, model).toBe("subscription");
      expect(answer.response.headers.get("x-planfirst-connection")).toBe("copilot");
    }
    const hits = completionHits("/copilot/chat/completions");
    expect(hits).toHaveLength(3);
    // Session tokens from the exchange (the fake issues them as `tid=…`), never the GitHub token.
    const github = credentialLabel(bed.plans.copilot.githubToken);
    for (const hit of hits) {
      expect(hit.scheme).toBe("Bearer");
      expect(hit.label).toMatch(/^tid=/);
      expect(hit.label).not.toBe(github);
      // planfirst's own identity: the fake, like Copilot, refuses a request without it.
      expect(hit.headers["editor-version"]).toBe(PLANFIRST_USER_AGENT);
      expect(hit.headers["copilot-integration-id"]).toBe(COPILOT_DEFAULT_INTEGRATION_ID);
    }
    // One exchange serves every request while the session token is valid.
    expect(bed.plans.copilot.exchanges - exchangesBefore).toBe(1);
    expect(harness.logs.join("")).not.toContain(bed.plans.copilot.githubToken);
  });

  it("streams a completion from the seat to the client", async () => {
    const harness = await gateway(
      [copilotConnection()],
      { GH_TOKEN: bed.plans.copilot.githubToken },
      ["github-copilot"],
    );
    const answer = await served(harness, "auto/subscription", { stream: true });
    expect(answer.response.status).toBe(200);
    expect(answer.response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(answer.rung).toBe("subscription");
    expect(answer.text).toContain('"content":"ok"');
    expect(answer.text.trimEnd().endsWith("data: [DONE]")).toBe(true);
    const hit = completionHits("/copilot/chat/completions").at(-1)!;
    expect((hit.body as { stream?: unknown }).stream).toBe(true);
    expect(hit.headers["editor-version"]).toBe(PLANFIRST_USER_AGENT);
  });

  it("an integration id Copilot refuses cools the seat with that reason; auto/thrifty is served by the next rung, auto/subscription by no paid one", async () => {
    const harness = await gateway(
      [copilotConnection({ "copilot-integration-id": "planfirst-unregistered" })],
      { GH_TOKEN: bed.plans.copilot.githubToken },
      ["github-copilot"],
    );
    const reason = "Copilot refused the request: unknown Copilot-Integration-Id header";
    const thrifty = await served(harness, "auto/thrifty");
    expect(thrifty.response.status).toBe(200);
    expect(thrifty.rung).toBe("cheap");
    expect(thrifty.response.headers.get("x-planfirst-attempts")).toBe("2");
    const refused = completionHits("/copilot/chat/completions");
    expect(refused).toHaveLength(1);
    expect(refused[0]!.headers["copilot-integration-id"]).toBe("planfirst-unregistered");
    expect(bed.metered.completionHits()).toHaveLength(1);

    const status = await getJson<GatewayStatus>(harness.url, "/v1/status");
    const seat = status.connections.find((connection) => connection.id === "copilot")!;
    expect(seat.cooldowns).toEqual([
      expect.objectContaining({ kind: "misconfigured", model: null, reason }),
    ]);
    expect(Date.parse(seat.cooldownUntil!) - bed.clock.now()).toBe(15 * 60_000);
    const explained = await getJson<ModelExplanation>(harness.url, "/v1/ladder?model=auto/thrifty");
    expect(explained.excluded).toContainEqual(
      expect.objectContaining({ connectionId: "copilot", reason: expect.stringContaining(reason) }),
    );
    expect(harness.logs.join("")).toContain(reason);

    // While it cools the seat is sent nothing; the strict id fails closed, never on a paid rung.
    expect(
      (await served(harness, "auto/thrifty")).response.headers.get("x-planfirst-attempts"),
    ).toBe("1");
    const strict = await served(harness, "auto/subscription");
    expect(strict.response.status).toBe(429);
    expect(strict.text).toContain(reason);
    expect(completionHits("/copilot/chat/completions")).toHaveLength(1);
    expect(bed.metered.completionHits()).toHaveLength(2);

    // An operator's fix is tried once the cooldown ends.
    bed.clock.advance(15 * 60_000);
    await served(harness, "auto/thrifty");
    expect(completionHits("/copilot/chat/completions")).toHaveLength(2);
  });

  it("on auto/subscription a refused integration id falls through to the next plan, never to a paid rung", async () => {
    const harness = await gateway(
      [copilotConnection({ "copilot-integration-id": "planfirst-unregistered" }), zaiConnection()],
      { GH_TOKEN: bed.plans.copilot.githubToken, ZAI_KEY: bed.plans.zai.apiKey },
      ["github-copilot"],
    );
    // The seat resets first (the 1st at 00:00 UTC, 14 h away), so it is tried first.
    bed.plans.zai.tokensResetAtMs = bed.clock.now() + 20 * hour;
    await harness.server.gateway.refreshUsage();
    const answer = await served(harness, "auto/subscription");
    bed.plans.zai.tokensResetAtMs = null;
    expect(answer.response.status).toBe(200);
    expect(answer.rung).toBe("subscription");
    expect(answer.response.headers.get("x-planfirst-connection")).toBe("zai");
    expect(answer.response.headers.get("x-planfirst-attempts")).toBe("2");
    expect(completionHits("/copilot/chat/completions")).toHaveLength(1);
    expect(bed.metered.completionHits()).toHaveLength(0);
  });

  it("a client's own bad request is answered as its 400 and cools nothing, on auto/thrifty too", async () => {
    const harness = await gateway(
      [copilotConnection()],
      { GH_TOKEN: bed.plans.copilot.githubToken },
      ["github-copilot"],
    );
    // Copilot checks the body against its schema; the gateway passes a temperature through.
    const malformed = { temperature: 7 };
    for (const model of ["gpt-4.1", "auto/thrifty"]) {
      const answer = await served(harness, model, malformed);
      expect(answer.response.status, model).toBe(400);
      expect(JSON.parse(answer.text), model).toMatchObject({
        error: { code: "invalid_request_body" },
      });
    }
    expect(completionHits("/copilot/chat/completions")).toHaveLength(2);
    expect(bed.metered.completionHits()).toHaveLength(0);
    const status = await getJson<GatewayStatus>(harness.url, "/v1/status");
    expect(status.connections.every((connection) => connection.cooldowns.length === 0)).toBe(true);
    expect((await served(harness, "gpt-4.1")).response.status).toBe(200);
  });

  it("reads quota from the usage poll, escalates on quota_exceeded and gives auto/subscription the monthly reset", async () => {
    const harness = await gateway(
      [copilotConnection()],
      { GH_TOKEN: bed.plans.copilot.githubToken },
      ["github-copilot"],
    );
    bed.plans.copilot.premiumPercentRemaining = 60;
    await harness.server.gateway.refreshUsage();
    const state = harness.server.gateway.deps.quotaCache.get("github-copilot", "copilot");
    expect(state?.status).toBe("available");
    expect(state?.remainingPercent).toBe(60);

    bed.plans.copilot.exhausted = true;
    const thrifty = await served(harness, "auto/thrifty");
    expect(thrifty.response.status).toBe(200);
    expect(thrifty.rung).toBe("cheap");
    expect(completionHits("/copilot/chat/completions")).toHaveLength(1);

    const subscription = await served(harness, "auto/subscription");
    expect(subscription.response.status).toBe(429);
    const resetMs = Date.parse(bed.plans.copilot.resetDateUtc);
    expect(Number(subscription.response.headers.get("retry-after"))).toBe(
      Math.ceil((resetMs - bed.clock.now()) / 1000),
    );
    // Cooling until the reset: the seat is sent nothing more.
    expect(completionHits("/copilot/chat/completions")).toHaveLength(1);
    bed.plans.copilot.premiumPercentRemaining = 80;
  });

  it("exchanges a new session token past expiry and after a server-side revocation, with no failed request", async () => {
    const harness = await gateway(
      [copilotConnection()],
      { GH_TOKEN: bed.plans.copilot.githubToken },
      ["github-copilot"],
    );
    expect((await served(harness, "gpt-4.1")).response.status).toBe(200);
    const first = bed.plans.copilot.exchanges;
    bed.clock.advance(hour); // past the 30 min session token
    expect((await served(harness, "gpt-4.1")).rung).toBe("subscription");
    expect(bed.plans.copilot.exchanges).toBe(first + 1);

    bed.plans.copilot.expireSessionTokens(); // GitHub revokes it early: a 401, one exchange, a retry
    const again = await served(harness, "gpt-4.1");
    expect(again.response.status).toBe(200);
    expect(again.rung).toBe("subscription");
    expect(bed.plans.copilot.exchanges).toBe(first + 2);
    const hits = completionHits("/copilot/chat/completions");
    expect(hits.at(-2)?.label).not.toBe(hits.at(-1)?.label);
  });
});
