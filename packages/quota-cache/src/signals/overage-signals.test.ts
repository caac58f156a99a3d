import { describe, expect, it } from "vitest";
import claudeUsage from "./__fixtures__/claude-oauth-usage.json";
import overage200 from "./__fixtures__/claude-subscription-200-overage.json";
import thirdParty400 from "./__fixtures__/claude-subscription-400-third-party-extra-usage.json";
import rejected429 from "./__fixtures__/claude-subscription-429-five-hour.json";
import longContext429 from "./__fixtures__/claude-subscription-429-long-context-extra-usage.json";
import codex200 from "./__fixtures__/codex-200-pro.json";
import codexUsage from "./__fixtures__/codex-usage.json";
import copilot402 from "./__fixtures__/copilot-402-quota-exceeded.json";
import copilotPaid from "./__fixtures__/copilot-user-paid.json";
import { claudeUsageEvidence, codexUsageEvidence, copilotUsageEvidence } from "./overage-signals";
import { parseResponseSignals, parseUsageSignals } from "./parse-response-signals";

const observedAtMs = Date.parse("2026-03-25T20:25:06.000Z");
const observedAt = "2026-03-25T20:25:06.000Z";

describe("overage evidence from responses (E1, E2)", () => {
  it("Claude overage-status rejected with a disabled reason is evidence off", () => {
    const signals = parseResponseSignals("claude", { ...rejected429, observedAtMs });
    expect(signals.evidence).toEqual({
      evidence: "off",
      observedAt,
      source: "claude-header",
      detail: "out_of_credits",
    });
  });

  it("Claude overage-status allowed_warning is evidence on", () => {
    const signals = parseResponseSignals("claude", { ...overage200, observedAtMs });
    expect(signals.evidence).toMatchObject({ evidence: "on", source: "claude-header" });
  });

  it("Claude overage-status rejected without a reason is no evidence", () => {
    const headers = { ...rejected429.headers } as Record<string, string>;
    delete headers["anthropic-ratelimit-unified-overage-disabled-reason"];
    const signals = parseResponseSignals("claude", { ...rejected429, headers, observedAtMs });
    expect(signals.evidence).toBeUndefined();
  });

  it("the 400 'Third-party apps now draw from your extra usage' is a money refusal with evidence on", () => {
    const signals = parseResponseSignals("claude", { ...thirdParty400, observedAtMs });
    expect(signals.failure).toMatchObject({ kind: "money_refusal" });
    expect(signals.evidence).toMatchObject({ evidence: "on", source: "claude-money-refusal" });
  });

  it("the 400 'only authorized for use with Claude Code' refuses the client program, with no evidence", () => {
    const body = {
      type: "error",
      error: {
        type: "invalid_request_error",
        message:
          "This credential is only authorized for use with Claude Code and cannot be used for other API requests.",
      },
    };
    const signals = parseResponseSignals("claude", {
      status: 400,
      headers: {},
      body,
      observedAtMs,
    });
    expect(signals.failure).toMatchObject({ kind: "client_refused" });
    expect(signals.evidence).toBeUndefined();
  });

  it("the 400 'You're out of extra usage' is a money refusal", () => {
    const body = {
      type: "error",
      error: {
        type: "invalid_request_error",
        message: "You're out of extra usage. Add more at claude.ai.",
      },
    };
    const signals = parseResponseSignals("claude", {
      status: 400,
      headers: {},
      body,
      observedAtMs,
    });
    expect(signals.failure?.kind).toBe("money_refusal");
    expect(signals.evidence?.evidence).toBe("on");
  });

  it("the 429 'Extra usage is required for long context requests' spends no plan window", () => {
    const signals = parseResponseSignals("claude", { ...longContext429, observedAtMs });
    expect(signals.failure?.kind).toBe("money_refusal");
    expect(signals.evidence?.evidence).toBe("on");
    expect(signals.windows.every((w) => w.status !== "exhausted")).toBe(true);
  });

  it("an ordinary 400 is no money refusal and no evidence", () => {
    const body = {
      type: "error",
      error: { type: "invalid_request_error", message: "max_tokens: must be positive" },
    };
    const signals = parseResponseSignals("claude", {
      status: 400,
      headers: {},
      body,
      observedAtMs,
    });
    expect(signals.failure).toBeUndefined();
    expect(signals.evidence).toBeUndefined();
  });

  it("Codex credits headers False/False are evidence off; True is on", () => {
    const off = parseResponseSignals("codex", { ...codex200, observedAtMs });
    expect(off.evidence).toMatchObject({ evidence: "off", source: "codex-header" });
    const headers = { ...codex200.headers, "x-codex-credits-has-credits": "True" };
    const on = parseResponseSignals("codex", { ...codex200, headers, observedAtMs });
    expect(on.evidence).toMatchObject({ evidence: "on", detail: "has_credits=true" });
    const unlimited = { ...codex200.headers, "x-codex-credits-unlimited": "1" };
    expect(
      parseResponseSignals("codex", { ...codex200, headers: unlimited, observedAtMs }).evidence
        ?.evidence,
    ).toBe("on");
  });

  it("a Copilot 402 quota_exceeded is evidence off (the plan stopped)", () => {
    const signals = parseResponseSignals("github-copilot", { ...copilot402, observedAtMs });
    expect(signals.evidence).toMatchObject({ evidence: "off", source: "copilot-quota-exceeded" });
  });
});

describe("overage evidence from usage payloads (E1, E2)", () => {
  it("Claude extra_usage.is_enabled false is off, true is on", () => {
    expect(parseUsageSignals("claude", claudeUsage, observedAtMs).evidence).toMatchObject({
      evidence: "off",
      source: "claude-usage",
    });
    const on = { ...claudeUsage, extra_usage: { is_enabled: true, monthly_limit: 5000 } };
    expect(parseUsageSignals("claude", on, observedAtMs).evidence?.evidence).toBe("on");
    const silent = { ...claudeUsage, extra_usage: null };
    expect(parseUsageSignals("claude", silent, observedAtMs).evidence).toBeUndefined();
  });

  it("Codex usage and the codex.rate_limits event carry credits evidence", () => {
    expect(parseUsageSignals("codex", codexUsage, observedAtMs).evidence).toMatchObject({
      evidence: "off",
      source: "codex-usage",
    });
    const event = {
      type: "codex.rate_limits",
      rate_limits: { primary: { used_percent: 7, window_minutes: 300, reset_at: 1774480000 } },
      credits: { has_credits: true, unlimited: false, balance: "12" },
    };
    expect(parseUsageSignals("codex", event, observedAtMs).evidence).toMatchObject({
      evidence: "on",
      source: "codex-event",
    });
  });

  it("Copilot overage_permitted true is on with the count; false is off", () => {
    const on = parseUsageSignals("github-copilot", copilotPaid, observedAtMs).evidence;
    expect(on).toMatchObject({ evidence: "on", source: "copilot-usage", overageCount: 0 });
    const snapshots = copilotPaid.quota_snapshots;
    const off = {
      ...copilotPaid,
      quota_snapshots: {
        ...snapshots,
        premium_interactions: { ...snapshots.premium_interactions, overage_permitted: false },
      },
    };
    expect(parseUsageSignals("github-copilot", off, observedAtMs).evidence?.evidence).toBe("off");
  });

  it("each family's reader gives what the provider id's convenience gives", () => {
    expect(claudeUsageEvidence(claudeUsage, observedAtMs)).toEqual(
      parseUsageSignals("claude", claudeUsage, observedAtMs).evidence,
    );
    expect(codexUsageEvidence(codexUsage, observedAtMs)).toMatchObject({
      evidence: "off",
      source: "codex-usage",
      observedAt,
    });
    expect(copilotUsageEvidence(copilotPaid, observedAtMs)).toMatchObject({
      evidence: "on",
      overageCount: 0,
    });
    expect(codexUsageEvidence(claudeUsage, observedAtMs)).toBeUndefined();
    expect(copilotUsageEvidence("not a payload", observedAtMs)).toBeUndefined();
  });

  it("a provider with no overage signal gives windows and no evidence", () => {
    expect(parseUsageSignals("openrouter", {}, observedAtMs)).toEqual({ windows: [] });
  });
});
