import { describe, expect, it } from "vitest";
import { scopeAppliesToModel } from "./model-scope";

describe("scopeAppliesToModel", () => {
  it.each([
    ["opus", "claude-opus-4-1", true],
    ["OPUS", "Claude-Opus-4-1", true],
    ["claude-sonnet-4.5", "anthropic/claude-sonnet-4-5", true],
    ["gemini-2.5-pro", "gemini-2.5-pro-preview", true],
    ["claude-opus-4-1", "claude-opus-4-1-20250805", true],
    ["opus", "claude-sonnet-4-5", false],
    ["claude-opus-4-1", "claude-opus-4", false],
    ["pro", "gemini-2.5-flash", false],
    ["", "claude-opus-4-1", false],
  ])("scope %s on model %s → %s", (scope, model, applies) => {
    expect(scopeAppliesToModel(scope, model)).toBe(applies);
  });
});
