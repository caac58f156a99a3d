import { describe, expect, it } from "vitest";
import { parseProseRetryHint } from "./parse-prose-retry-hint";

describe("parseProseRetryHint", () => {
  it.each([
    ["Please try again in 1.146s. Visit https://platform.openai.com", 1_146],
    ["Please try again in 84ms.", 84],
    ["try again in 11.054s", 11_054],
    ["Please try again in 35 seconds", 35_000],
    ["Please retry in 47s.", 47_000],
    ["Please retry in 24.077635839s.", 24_077.635839],
    ["Your quota will reset after 0s.", 0],
    ["Please wait 2 minutes before retrying.", 120_000],
    ["wait 6 seconds", 6_000],
    ["Please try again in 58 hours.", 208_800_000],
    ["Try again in 1 hour 30 minutes", 5_400_000],
    ["try again in 1m30s", 90_000],
    ["It will be available again in 3 days", 259_200_000],
  ])("reads %j", (message, ms) => {
    expect(parseProseRetryHint(message)).toBeCloseTo(ms, 3);
  });

  it("falls back to a bare 'in N unit'", () => {
    expect(parseProseRetryHint("You can send more messages in 58 hours")).toBe(208_800_000);
  });

  it("gives null when the text holds no wait", () => {
    expect(parseProseRetryHint("Rate limit reached for gpt-4o-mini in project proj_x")).toBeNull();
    expect(parseProseRetryHint("This model is limited to 8 requests per minute")).toBeNull();
    expect(parseProseRetryHint("")).toBeNull();
    expect(parseProseRetryHint(undefined)).toBeNull();
  });
});
