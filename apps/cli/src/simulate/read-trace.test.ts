import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { readTrace } from "./read-trace";

const FIXTURES = fileURLToPath(new URL("../../test/fixtures/simulate/", import.meta.url));
const CLAUDE_LOG = join(
  FIXTURES,
  "claude/projects/-home-dev-shop/5f0c2a7e-1111-4c2b-9d1e-0a0b0c0d0e0f.jsonl",
);
const CODEX_LOG = join(
  FIXTURES,
  "codex/sessions/2026/11/03/rollout-2026-11-03T10-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000.jsonl",
);

describe("readTrace", () => {
  it("reads Claude Code usage once per message, skips other lines and reports bad ones by line", async () => {
    const trace = await readTrace([CLAUDE_LOG]);
    // Lines 3, 5, 7, 10, 11, 12 are responses; line 4 repeats line 3's message (a second content
    // block), line 9 is Claude Code's <synthetic> placeholder, lines 1–2 are a summary and a prompt.
    expect(trace.records.map((record) => record.timeMs)).toEqual(
      [
        "2026-11-02T09:00:00.000Z",
        "2026-11-02T09:10:00.000Z",
        "2026-11-02T09:20:00.000Z",
        "2026-11-02T09:30:00.000Z",
        "2026-11-02T09:40:00.000Z",
        "2026-11-02T14:30:00.000Z",
      ].map(Date.parse),
    );
    expect(trace.records[0]).toEqual({
      timeMs: Date.parse("2026-11-02T09:00:00.000Z"),
      model: "claude-sonnet-4-5-20250929",
      inputTokens: 100_000,
      outputTokens: 10_000,
      cachedInputTokens: 0,
      cacheWriteTokens: 0,
      source: "claude-code",
    });
    expect(trace.badLines).toEqual([
      { file: CLAUDE_LOG, line: 6, reason: "not JSON" },
      {
        file: CLAUDE_LOG,
        line: 8,
        reason:
          "assistant line without valid usage (message.usage.output_tokens: expected a count)",
      },
    ]);
    expect(JSON.stringify(trace)).not.toContain("secret prompt");
  });

  it("reads Codex token counts with the turn's model, once per turn, and keeps the rate-limit readings", async () => {
    const trace = await readTrace([CODEX_LOG]);
    // Four turns; the repeated event on line 7 has the same totals as line 6 and is not a turn.
    expect(trace.records).toHaveLength(4);
    expect(trace.records[0]).toEqual({
      timeMs: Date.parse("2026-11-03T10:05:00.000Z"),
      model: "gpt-5.4",
      inputTokens: 200_000,
      outputTokens: 20_000,
      cachedInputTokens: 100_000,
      cacheWriteTokens: 0,
      source: "codex",
    });
    // Six token_count events (lines 4–7, 9, 10), each with a 5 h and a 7 d window.
    expect(trace.readings).toHaveLength(12);
    expect(trace.readings.at(-1)).toEqual({
      timeMs: Date.parse("2026-11-03T10:35:00.000Z"),
      provider: "codex",
      source: "codex",
      windowMinutes: 10_080,
      usedPercent: 11.5,
      resetsAtMs: 1_794_220_000_000,
    });
    expect(trace.badLines).toEqual([{ file: CODEX_LOG, line: 8, reason: "not JSON" }]);
    expect(JSON.stringify(trace)).not.toContain("secret prompt");
  });

  it("reads generic CSV and JSONL traces, ISO or epoch times, and reports malformed rows", async () => {
    const csv = join(FIXTURES, "trace.csv");
    const jsonl = join(FIXTURES, "trace.jsonl");
    const trace = await readTrace([csv, jsonl]);
    expect(
      trace.records.map((record) => [record.model, record.inputTokens, record.cachedInputTokens]),
    ).toEqual([
      ["claude-sonnet-4-5", 1_000_000, 500_000],
      ["claude-sonnet-4-5", 200_000, 0],
      ["mystery-model-x", 1_000, 0],
    ]);
    expect(trace.badLines).toEqual([
      { file: csv, line: 3, reason: "row without valid usage (input_tokens: expected a count)" },
      { file: csv, line: 4, reason: "expected 5 columns, found 3" },
      {
        file: jsonl,
        line: 2,
        reason:
          "row without valid usage (cached_input_tokens: exceeds input_tokens (cached tokens are part of input))",
      },
    ]);
  });
});

describe("readTrace on a gateway's request log export", () => {
  it("replays what served each request, skips refusals and reports a record that does not validate", async () => {
    const file = join(FIXTURES, "requests.jsonl");
    const trace = await readTrace([file]);
    expect(trace.records).toEqual([
      {
        timeMs: Date.parse("2026-12-01T09:00:00.000Z"),
        model: "qwen/qwen3-coder",
        inputTokens: 1200,
        outputTokens: 300,
        cachedInputTokens: 200,
        cacheWriteTokens: 0,
        source: "request-log",
      },
    ]);
    expect(trace.badLines).toEqual([
      {
        file,
        line: 3,
        reason:
          "request log record without valid fields (status: Invalid input: expected number, received string)",
      },
    ]);
  });
});
