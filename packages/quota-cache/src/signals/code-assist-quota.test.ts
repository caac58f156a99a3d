import { describe, expect, it } from "vitest";
import antigravity from "./__fixtures__/antigravity-models.json";
import buckets from "./__fixtures__/code-assist-quota.json";
import { parseCodeAssistQuota } from "./code-assist-quota";

const observedAtMs = Date.parse("2026-05-22T10:00:00.000Z");

describe("parseCodeAssistQuota", () => {
  it("one window per model bucket, fraction remaining → percent", () => {
    const windows = parseCodeAssistQuota(buckets, observedAtMs);
    expect(windows.map((w) => [w.windowId, w.scope?.model, w.remainingPercent, w.status])).toEqual([
      ["requests:gemini-3.1-pro-preview", "gemini-3.1-pro-preview", 100, "ok"],
      ["requests:gemini-2.5-flash", "gemini-2.5-flash", 4, "ok"],
      ["requests:gemini-2.5-pro", "gemini-2.5-pro", 0, "exhausted"],
    ]);
    expect(windows[0]?.resetAt).toBe("2026-05-23T02:48:06.000Z");
  });

  it("reads Antigravity models; a missing fraction is unknown, not exhausted", () => {
    const windows = parseCodeAssistQuota(antigravity, observedAtMs);
    const byId = Object.fromEntries(windows.map((w) => [w.windowId, w]));
    expect(byId["quota:gemini-3-pro-high"]?.remainingPercent).toBe(80);
    expect(byId["quota:claude-sonnet-4-5"]).toMatchObject({ remainingPercent: null, status: "ok" });
    expect(byId["quota:gpt-oss-120b-medium"]?.status).toBe("exhausted");
  });
});
