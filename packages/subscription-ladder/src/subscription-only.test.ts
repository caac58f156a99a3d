import { describe, expect, it } from "vitest";
import type { LadderCandidate } from "./ladder-options";
import { at, reading, testOptions } from "./ladder-test-support";
import { filterSubscriptionOnlyCandidates } from "./subscription-only";

const authTypes = {
  max: "oauth", // claude subscription, hard-stop
  max2: "oauth",
  key: "apikey", // claude metered (provider-wide entry)
  copilot: "oauth", // subscription, overage unknown
  cursor: "oauth", // subscription, meters-to-paid
  local: "none", // keyless
  newco: "oauth", // uncurated
};
const fresh = reading({ remainingPercent: 60 });
const states = {
  max: fresh,
  max2: fresh,
  key: fresh,
  copilot: fresh,
  cursor: fresh,
  local: fresh,
  newco: fresh,
};

function candidate(provider: string, ids: string[], model = "m"): LadderCandidate {
  return { provider, model, connectionId: null, allowedConnectionIds: ids };
}

describe("filterSubscriptionOnlyCandidates", () => {
  it("SUB1 unknown quota is never admitted, whatever admitUnknownQuota says", () => {
    const pool = [candidate("claude", ["max"])];
    for (const state of [
      undefined,
      reading({ status: "unknown" }),
      reading({ checkedAt: at(-200_000) }),
      reading({ remainingPercent: null }),
      reading({ resetAt: at(-1) }),
    ]) {
      const options = testOptions(
        { authTypes, states: { max: state } },
        { admitUnknownQuota: true },
      );
      expect(filterSubscriptionOnlyCandidates(pool, options)).toEqual([]);
    }
  });

  it("SUB2 only subscription billing with hard-stop overage and usable quota is safe", () => {
    const options = testOptions({ authTypes, states });
    const cases: [string, string, boolean][] = [
      ["claude", "max", true],
      ["claude", "key", false], // metered
      ["github-copilot", "copilot", false], // overage unknown
      ["cursor", "cursor", false], // meters-to-paid
      ["ollama", "local", false], // keyless is not a subscription
      ["newco", "newco", false], // uncurated (C7)
    ];
    for (const [provider, id, kept] of cases) {
      expect(
        filterSubscriptionOnlyCandidates([candidate(provider, [id])], options),
        id,
      ).toHaveLength(kept ? 1 : 0);
    }
    const exhausted = testOptions({ authTypes, states: { max: reading({ remainingPercent: 1 }) } });
    expect(filterSubscriptionOnlyCandidates([candidate("claude", ["max"])], exhausted)).toEqual([]);
  });

  it("SUB3 every connection is verified individually and the allowlist is rewritten to exactly those that passed, in order", () => {
    const options = testOptions({
      authTypes,
      states: { ...states, max2: reading({ status: "exhausted" }) },
    });
    const pool = [candidate("claude", ["key", "max2", "max", "key"])];
    const out = filterSubscriptionOnlyCandidates(pool, options);
    expect(out).toEqual([{ ...pool[0], allowedConnectionIds: ["max"] }]);
    expect(pool[0]!.allowedConnectionIds).toEqual(["key", "max2", "max", "key"]);
  });

  it("SUB3 a candidate bound to one connection is verified as that connection", () => {
    const options = testOptions({ authTypes, states });
    const bound = {
      provider: "claude",
      model: "m",
      connectionId: "key",
      allowedConnectionIds: ["max"],
    };
    expect(filterSubscriptionOnlyCandidates([bound], options)).toEqual([]);
    const boundPlan = { provider: "claude", model: "m", connectionId: "max" };
    expect(filterSubscriptionOnlyCandidates([boundPlan], options)).toEqual([boundPlan]);
  });

  it("SUB4 a candidate with no safe connection is dropped, never returned with an empty allowlist", () => {
    const options = testOptions({ authTypes, states });
    const pool = [
      candidate("claude", ["key"]),
      candidate("claude", []),
      candidate("claude", ["max"]),
    ];
    const out = filterSubscriptionOnlyCandidates(pool, options);
    expect(out).toEqual([pool[2]]);
    expect(out[0]).toBe(pool[2]);
  });

  it("SUB5 nothing dropped and nothing rewritten returns the same array reference", () => {
    const options = testOptions({ authTypes, states });
    const pool = [candidate("claude", ["max", "max2"]), candidate("claude", ["max2"], "other")];
    expect(filterSubscriptionOnlyCandidates(pool, options)).toBe(pool);
    expect(filterSubscriptionOnlyCandidates([], options)).toEqual([]);
  });

  it("SUB6 an empty result is the answer: no fallback to metered, keyless or unverified connections", () => {
    const options = testOptions({
      authTypes,
      states: {
        ...states,
        max: reading({ status: "exhausted" }),
        max2: reading({ remainingPercent: 2 }),
      },
    });
    const pool = [
      candidate("claude", ["max", "max2", "key"]),
      candidate("ollama", ["local"]),
      candidate("cursor", ["cursor"]),
      candidate("newco", ["newco"]),
    ];
    expect(filterSubscriptionOnlyCandidates(pool, options)).toEqual([]);
  });

  it("ladder.md §10 other fields of a candidate survive the rewrite", () => {
    const options = testOptions({ authTypes, states });
    const pool = [{ ...candidate("claude", ["key", "max"]), score: 7, label: "a" }];
    expect(filterSubscriptionOnlyCandidates(pool, options)).toEqual([
      {
        provider: "claude",
        model: "m",
        connectionId: null,
        allowedConnectionIds: ["max"],
        score: 7,
        label: "a",
      },
    ]);
  });

  it("calls now() once per pool build", () => {
    let calls = 0;
    const options = testOptions(
      { authTypes, states },
      {
        now: () => {
          calls++;
          return Date.parse(at(0));
        },
      },
    );
    filterSubscriptionOnlyCandidates(
      [candidate("claude", ["max", "max2"]), candidate("claude", ["max"])],
      options,
    );
    expect(calls).toBe(1);
  });
});
