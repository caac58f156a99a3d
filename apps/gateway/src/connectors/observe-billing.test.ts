import { createQuotaCache, EVIDENCE_REWRITE_INTERVAL_MS } from "@planfirst/quota-cache";
import { describe, expect, it } from "vitest";
import { observeBilling } from "./observe-billing";
import { createOpenAiCompatibleConnector } from "./openai-compatible/openai-compatible-connector";
import { createOpenRouterConnector } from "./openrouter/openrouter-connector";

const openRouter = (id: string) =>
  createOpenRouterConnector({
    id,
    provider: "openrouter",
    authType: "apikey",
    credential: "sk-or-1",
  });

function setUp() {
  let nowMs = Date.parse("2026-12-01T10:00:00.000Z");
  const quotaCache = createQuotaCache({ now: () => nowMs });
  const deps = { quotaCache, now: () => nowMs };
  const advance = (ms: number) => {
    nowMs += ms;
  };
  return { quotaCache, deps, advance };
}

describe("observeBilling", () => {
  it("records a billing connector's `on` at once, skips repeats inside the rewrite interval, refreshes it after", () => {
    const { quotaCache, deps, advance } = setUp();
    const connector = openRouter("or");
    observeBilling(deps, "or", connector);
    const first = quotaCache.overageEvidence("or");
    expect(first).toEqual([
      expect.objectContaining({
        evidence: "on",
        source: "credits",
        observedAt: "2026-12-01T10:00:00.000Z",
      }),
    ]);

    advance(EVIDENCE_REWRITE_INTERVAL_MS - 1);
    observeBilling(deps, "or", connector);
    expect(quotaCache.overageEvidence("or")).toEqual(first);

    advance(1);
    observeBilling(deps, "or", connector);
    expect(quotaCache.overageEvidence("or")).toEqual([
      expect.objectContaining({ evidence: "on", observedAt: "2026-12-01T10:00:05.000Z" }),
    ]);
  });

  it("keeps each connector's interval apart, and records nothing for one that does not bill", () => {
    const { quotaCache, deps } = setUp();
    const a = openRouter("a");
    const b = openRouter("b");
    observeBilling(deps, "a", a);
    observeBilling(deps, "b", b);
    expect(quotaCache.overageEvidence("a")).toHaveLength(1);
    expect(quotaCache.overageEvidence("b")).toHaveLength(1);

    const local = createOpenAiCompatibleConnector({
      id: "local",
      provider: "ollama",
      authType: "none",
      baseUrl: "http://127.0.0.1:11434/v1",
    });
    observeBilling(deps, "local", local);
    expect(quotaCache.overageEvidence("local")).toEqual([]);
  });
});
