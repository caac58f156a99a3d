// Fuzz properties of what every family shares: the entry points that pick a family by provider
// id, and the header and duration helpers the family parsers are built from.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { body, headers, headerValue, observedAtMs, RUNS, responseInput } from "./fuzz-arbitraries";
import { expectIsoOrNull, expectValidSignals, expectValidWindow } from "./fuzz-invariants";
import { parseEpoch } from "./parse-epoch";
import { parseGoDuration } from "./parse-go-duration";
import { parseIetfRateLimit } from "./parse-ietf-rate-limit";
import { parseProseRetryHint } from "./parse-prose-retry-hint";
import { parseResponseSignals, parseUsagePayload } from "./parse-response-signals";
import { parseRetryAfter } from "./parse-retry-after";

describe("fuzz: every parser is total and keeps its invariants", () => {
  it("parseResponseSignals and parseUsagePayload: any provider id", () => {
    const provider = fc.oneof(
      fc.constantFrom(
        "claude",
        "anthropic",
        "openai",
        "codex",
        "github-copilot",
        "google",
        "groq",
        "__proto__",
      ),
      fc.string(),
    );
    fc.assert(
      fc.property(provider, responseInput, body, (id, input, payload) => {
        expectValidSignals(parseResponseSignals(id, input));
        for (const window of parseUsagePayload(id, payload, input.observedAtMs))
          expectValidWindow(window);
      }),
      RUNS,
    );
  });

  it("primitive helpers: durations, epochs, retry hints and Retry-After stay finite and valid", () => {
    fc.assert(
      fc.property(
        fc.oneof(headerValue, fc.string()),
        fc.anything(),
        headers,
        observedAtMs,
        (text, raw, h, at) => {
          const duration = parseGoDuration(text);
          if (duration !== null) expect(Number.isFinite(duration) && duration >= 0).toBe(true);
          const hint = parseProseRetryHint(text);
          if (hint !== null) expect(Number.isFinite(hint) && hint >= 0).toBe(true);
          for (const value of [text, raw]) {
            const epoch = parseEpoch(value);
            if (epoch !== null) expectIsoOrNull(new Date(epoch).toISOString());
          }
          expectIsoOrNull(parseRetryAfter(h, at));
          expectIsoOrNull(parseRetryAfter({ "retry-after": text }, at));
          for (const window of parseIetfRateLimit(h, at)) expectValidWindow(window);
        },
      ),
      RUNS,
    );
  });
});
