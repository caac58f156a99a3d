import { claudeRateLimited, serverError } from "@planfirst/fake-upstream";
import { describe, expect, it } from "vitest";
import type { ModelExplanation } from "../src/routing/explain-model";
import { sessionHash } from "../src/routing/session-key";
import { claudeUsagePayload, TEST_ENV } from "./fixtures";
import { chatBody, getJson, post, useTestBed } from "./harness";
import {
  affinity,
  HOUR,
  planReadings,
  SESSION_ENV,
  SESSION_FAKES,
  SESSION_MODEL,
  send,
  sessionConfig,
  sessionOf,
  turn,
} from "./sessions";

// ladder.md §16: inside the rung the ladder chose, a conversation's next turn goes where its
// last one was served, while the ladder still admits it there; otherwise it moves and stays.

const bed = useTestBed(SESSION_FAKES);

describe("session affinity inside a rung (ladder.md §16)", () => {
  it("AF2: soonest reset first on two plan logins: the order flips mid-conversation, the conversation stays; a new one follows the order", async () => {
    const harness = await bed.start({ config: sessionConfig(bed.fakes), env: SESSION_ENV });
    await planReadings(harness, bed.fakes, 4 * HOUR, 1 * HOUR);
    const first = await send(harness, turn("auto/subscription", "the parser", 1));
    expect(first.connection).toBe("plan-b");
    expect(affinity(first)).toBe("affinity=new");

    harness.clock.advance(200_000);
    await planReadings(harness, bed.fakes, 30 * 60_000, 3 * HOUR); // plan-a now resets sooner
    const second = await send(harness, turn("auto/subscription", "the parser", 2));
    expect(second.connection).toBe("plan-b");
    expect(affinity(second)).toBe("affinity=hit");
    expect(second.session?.slice(0, 16)).toBe(first.session?.slice(0, 16));
    // The ladder route says where the session goes and why, in the order its request tries.
    const hash = first.session?.slice(0, 16) ?? "";
    const explained = await getJson<ModelExplanation>(
      harness.url,
      `/v1/ladder?model=auto/subscription&session=${hash}`,
    );
    expect(explained.targets.map((target) => target.connection)).toEqual(["plan-b", "plan-a"]);
    expect(explained.session).toMatchObject({
      hash,
      pinned: { connection: "plan-b", model: SESSION_MODEL, rung: "subscription" },
      affinity: "hit",
      reason: null,
    });
    const plain = await getJson<ModelExplanation>(
      harness.url,
      "/v1/ladder?model=auto/subscription",
    );
    expect(plain.targets.map((target) => target.connection)).toEqual(["plan-a", "plan-b"]);
    expect(plain.session).toBeUndefined();
    const streamed = await send(
      harness,
      turn("auto/subscription", "the parser", 3, { stream: true }),
    );
    expect(streamed.connection).toBe("plan-b");
    expect(affinity(streamed)).toBe("affinity=hit");

    const other = await send(harness, turn("auto/subscription", "the lexer", 1));
    expect(other.connection).toBe("plan-a");
    expect(affinity(other)).toBe("affinity=new");
    expect(other.session?.slice(0, 16)).not.toBe(first.session?.slice(0, 16));
    const otherNext = await send(harness, turn("auto/subscription", "the lexer", 2));
    expect(otherNext.connection).toBe("plan-a");
  });

  it("AF3/AF4: an exhausted pinned plan loses its sessions at once, and they do not flip back when it returns", async () => {
    const harness = await bed.start({ config: sessionConfig(bed.fakes), env: SESSION_ENV });
    await planReadings(harness, bed.fakes, 4 * HOUR, 1 * HOUR);
    expect((await send(harness, turn("auto/subscription", "one", 1))).connection).toBe("plan-b");
    const two = await send(harness, turn("auto/subscription", "two", 1));
    expect(two.connection).toBe("plan-b");

    // plan-b's window runs out under conversation one: the request falls through within itself.
    const resetAtMs = harness.clock.now() + 30 * 60_000;
    bed.fakes.planB.script([
      claudeRateLimited({ resetAtSec: Math.floor(resetAtMs / 1000), retryAfterSec: 1800 }),
    ]);
    const moved = await send(harness, turn("auto/subscription", "one", 2));
    expect(moved.connection).toBe("plan-a");
    expect(affinity(moved)).toBe("affinity=moved; reason=exhausted");
    expect(moved.attempts).toBe("2");
    // Conversation two never tries the exhausted plan: it moves on its next request.
    const explainedTwo = await getJson<ModelExplanation>(
      harness.url,
      `/v1/ladder?model=auto/subscription&session=${sessionOf(two)}`,
    );
    expect(explainedTwo.session).toMatchObject({ affinity: "moved", reason: "exhausted" });
    expect(explainedTwo.session?.why).toContain("exhausted");
    expect(explainedTwo.targets.map((target) => target.connection)).toEqual(["plan-a"]);
    const hitsOfB = bed.fakes.planB.completionHits().length;
    const twoMoved = await send(harness, turn("auto/subscription", "two", 2));
    expect(twoMoved.connection).toBe("plan-a");
    expect(affinity(twoMoved)).toBe("affinity=moved; reason=exhausted");
    expect(twoMoved.attempts).toBe("1");
    expect(bed.fakes.planB.completionHits()).toHaveLength(hitsOfB);

    // plan-b resets and is first in the ladder's order again: the moved sessions stay on plan-a.
    harness.clock.set(resetAtMs + 1_000);
    await planReadings(harness, bed.fakes, 4 * HOUR, 1 * HOUR);
    const stayed = await send(harness, turn("auto/subscription", "one", 3));
    expect(stayed.connection).toBe("plan-a");
    expect(affinity(stayed)).toBe("affinity=hit");
    expect((await send(harness, turn("auto/subscription", "two", 3))).connection).toBe("plan-a");
    expect((await send(harness, turn("auto/subscription", "three", 1))).connection).toBe("plan-b");
  });

  it("AF4: a cooldown that ends: the conversation that moved away stays where it went", async () => {
    const harness = await bed.start({ config: sessionConfig(bed.fakes), env: SESSION_ENV });
    // No readings: config order, plan-a first. plan-a fails once and cools down for a moment.
    bed.fakes.planA.script([serverError("anthropic")]);
    const first = await send(harness, turn("auto/thrifty", "cooling", 1));
    expect(first.connection).toBe("plan-b");
    harness.clock.advance(60_000); // the cooldown is over: plan-a is first again
    const next = await send(harness, turn("auto/thrifty", "cooling", 2));
    expect(next.connection).toBe("plan-b");
    expect(affinity(next)).toBe("affinity=hit");
    expect((await send(harness, turn("auto/thrifty", "fresh", 1))).connection).toBe("plan-a");
  });

  it("AF2/AF4: a paid-rung tie broken differently: the conversation keeps its key; it returns to the plan as soon as the plan is back", async () => {
    const harness = await bed.start({ config: sessionConfig(bed.fakes), env: SESSION_ENV });
    const now = harness.clock.now();
    bed.fakes.planA.usage(claudeUsagePayload(100, now + HOUR), { endpoint: "claude" });
    bed.fakes.planB.usage(claudeUsagePayload(100, now + HOUR), { endpoint: "claude" });
    await harness.server.gateway.refreshUsage();
    bed.fakes.cheap1.script([serverError("openai")]);
    const first = await send(harness, turn("auto/thrifty", "paid", 1));
    expect(first.connection).toBe("cheap-2");
    harness.clock.advance(60_000); // cheap-1 is back first in the tie
    const second = await send(harness, turn("auto/thrifty", "paid", 2));
    expect(second.connection).toBe("cheap-2");
    expect(affinity(second)).toBe("affinity=hit");
    expect((await send(harness, turn("auto/thrifty", "other", 1))).connection).toBe("cheap-1");

    // The plans reset: the paid session goes back to the plan (it costs nothing there).
    harness.clock.set(now + HOUR + 1_000);
    await planReadings(harness, bed.fakes, 5 * HOUR, 5 * HOUR);
    const back = await send(harness, turn("auto/thrifty", "paid", 3));
    expect(back.connection).toBe("plan-a");
    expect(affinity(back)).toBe("affinity=moved; reason=ladder");
  });

  it("AF1: a session named by the client (x-session-affinity) holds over single-turn requests; two client keys never share one", async () => {
    const harness = await bed.start({
      config: sessionConfig(bed.fakes, {
        server: {
          apiKeys: [
            { key: "env:CLIENT_KEY", id: "team-a" },
            { key: "env:OTHER_KEY", id: "team-b" },
          ],
        },
      }),
      env: { ...SESSION_ENV, OTHER_KEY: "pf-client-other-secret-555" },
    });
    const keyA = { authorization: `Bearer ${TEST_ENV.CLIENT_KEY}`, "x-session-affinity": "job-7" };
    const keyB = {
      authorization: "Bearer pf-client-other-secret-555",
      "x-session-affinity": "job-7",
    };
    await planReadings(harness, bed.fakes, 4 * HOUR, 1 * HOUR);
    const a1 = await send(harness, chatBody("auto/subscription"), keyA);
    expect(a1.connection).toBe("plan-b");
    harness.clock.advance(200_000);
    await planReadings(harness, bed.fakes, 30 * 60_000, 3 * HOUR);
    const a2 = await send(harness, chatBody("auto/subscription"), keyA);
    expect(a2.connection).toBe("plan-b");
    expect(affinity(a2)).toBe("affinity=hit");
    // Explain takes the session the way a request names it, hashed for the caller's key.
    const viaHeaders = await fetch(`${harness.url}/v1/ladder?model=auto/subscription`, {
      headers: keyA,
    });
    const explained = (await viaHeaders.json()) as ModelExplanation;
    expect(explained.session).toMatchObject({ hash: sessionOf(a1), affinity: "hit" });
    expect(explained.targets[0]?.connection).toBe("plan-b");
    const bad = await fetch(`${harness.url}/v1/ladder?model=auto/subscription&session=job-7`, {
      headers: keyA,
    });
    expect(bad.status).toBe(400);
    const b1 = await send(harness, chatBody("auto/subscription"), keyB);
    expect(b1.connection).toBe("plan-a");
    expect(affinity(b1)).toBe("affinity=new");
    expect(b1.session?.slice(0, 16)).not.toBe(a1.session?.slice(0, 16));
    // The header shows a hash only, never what the client sent.
    expect(a1.session).toMatch(/^[0-9a-f]{16}; affinity=new$/);
    // A side request of the session to another model id pins apart: the main pin stays.
    expect((await send(harness, chatBody("vendor/coder"), keyA)).connection).toBe("cheap-1");
    const a3 = await send(harness, chatBody("auto/subscription"), keyA);
    expect(a3.connection).toBe("plan-b");
    expect(affinity(a3)).toBe("affinity=hit");
  });

  it("AF1: recognises Claude Code's x-claude-code-session-id on Messages and the Codex CLI's session_id on Responses", async () => {
    const harness = await bed.start({ config: sessionConfig(bed.fakes), env: SESSION_ENV });
    const messages = await post(
      harness.url,
      "/v1/messages",
      { model: SESSION_MODEL, max_tokens: 16, messages: [{ role: "user", content: "hi" }] },
      { "x-claude-code-session-id": "2b7c0c1e-claude-session" },
    );
    expect(messages.status).toBe(200);
    expect(messages.headers.get("x-planfirst-session")).toBe(
      `${sessionHash("anonymous", "claude-code", "2b7c0c1e-claude-session")}; affinity=new`,
    );
    // Forwarded to the Anthropic upstream as the client sent it.
    expect(bed.fakes.planA.completionHits().at(-1)?.headers["x-claude-code-session-id"]).toBe(
      "2b7c0c1e-claude-session",
    );
    const responses = await post(
      harness.url,
      "/v1/responses",
      { model: "vendor/coder", input: "hi" },
      { session_id: "0199-codex-conversation" },
    );
    expect(responses.status).toBe(200);
    expect(responses.headers.get("x-planfirst-session")).toBe(
      `${sessionHash("anonymous", "openai", "0199-codex-conversation")}; affinity=new`,
    );
    // The request log keeps each request's session as its hash, never the id the client sent.
    const log = await getJson<{ data: { sessionHash: string | null }[] }>(
      harness.url,
      "/v1/requests",
    );
    expect(log.data.map((record) => record.sessionHash).sort()).toEqual(
      [
        sessionHash("anonymous", "claude-code", "2b7c0c1e-claude-session"),
        sessionHash("anonymous", "openai", "0199-codex-conversation"),
      ].sort(),
    );
    expect(JSON.stringify(log)).not.toContain("2b7c0c1e-claude-session");
  });

  it("AF5: a first turn is a new conversation even when another one opened with the same words", async () => {
    const harness = await bed.start({ config: sessionConfig(bed.fakes), env: SESSION_ENV });
    await planReadings(harness, bed.fakes, 4 * HOUR, 1 * HOUR);
    expect((await send(harness, turn("auto/subscription", "same", 1))).connection).toBe("plan-b");
    harness.clock.advance(200_000);
    await planReadings(harness, bed.fakes, 30 * 60_000, 3 * HOUR);
    const again = await send(harness, turn("auto/subscription", "same", 1));
    expect(again.connection).toBe("plan-a");
    expect(affinity(again)).toBe("affinity=new");
    // Its next turn follows the newer of the two: where the shared opening was served last.
    expect((await send(harness, turn("auto/subscription", "same", 2))).connection).toBe("plan-a");
  });

  it("AF4: a failed request pins nothing", async () => {
    const harness = await bed.start({ config: sessionConfig(bed.fakes), env: SESSION_ENV });
    await planReadings(harness, bed.fakes, 4 * HOUR, 1 * HOUR);
    bed.fakes.planB.script([{ stream: { chunks: ["a", "b", "c"], cutAfter: 1 } }]);
    const cut = await post(
      harness.url,
      "/v1/chat/completions",
      turn("auto/subscription", "cut", 1, { stream: true }),
    );
    expect(cut.status).toBe(200);
    expect(await cut.text()).toContain("upstream_stream_cut");
    harness.clock.advance(200_000);
    await planReadings(harness, bed.fakes, 30 * 60_000, 3 * HOUR);
    const next = await send(harness, turn("auto/subscription", "cut", 2));
    expect(next.connection).toBe("plan-a");
    expect(affinity(next)).toBe("affinity=new");
  });
});
