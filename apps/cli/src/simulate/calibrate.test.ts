import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ModelPrice } from "@planfirst/billing-catalog";
import { describe, expect, it } from "vitest";
import { calibrateAllowances } from "./calibrate";
import { readTrace } from "./read-trace";

const CODEX_LOG = fileURLToPath(
  new URL(
    "../../test/fixtures/simulate/codex/sessions/2026/11/03/rollout-2026-11-03T10-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000.jsonl",
    import.meta.url,
  ),
);
const GPT = {
  provider: "openai",
  model: "gpt-5.4",
  inputPerMTok: 2.5,
  outputPerMTok: 15,
  cachedInputPerMTok: 0.25,
} satisfies ModelPrice;

describe("calibrateAllowances", () => {
  it("scales the API-equivalent cost in each window by the share Codex reported used", async () => {
    const trace = await readTrace([join(CODEX_LOG)]);
    const found = calibrateAllowances(
      "codex",
      "codex-plus",
      trace.readings,
      trace.records,
      () => GPT,
    );
    // One turn: 100,000 uncached × $2.5/M = $0.25, 100,000 cached × $0.25/M = $0.025,
    // 20,000 out × $15/M = $0.30 → $0.575. The 5 h window read 11.5 % after one turn, 23 % after
    // two, 34.5 % after three, 46 % after four: $0.575 / 0.115 = $5.00 each time (5 readings,
    // the repeated event included). The 7 d window read 2.875 % (below the 5 % floor, skipped),
    // then 5.75 %, 5.75 %, 8.625 %, 11.5 %: $1.15 / 0.0575 = $20.00 (4 readings).
    expect(
      found.map((c) => [
        c.allowance.windowId,
        Number(c.allowance.amount.toFixed(6)),
        c.readings,
        c.allowance.origin,
      ]),
    ).toEqual([
      ["5h", 5, 5, "calibrated"],
      ["7d", 20, 4, "calibrated"],
    ]);
  });

  it("finds nothing for a provider whose logs carry no readings", async () => {
    const trace = await readTrace([CODEX_LOG]);
    expect(
      calibrateAllowances("claude", "claude-max", trace.readings, trace.records, () => GPT),
    ).toEqual([]);
  });
});
