// How long `planfirst simulate` takes on a month of a heavy user's Claude Code log: 100,000
// requests written as real transcript lines (with the duplicate content-block lines Claude Code
// writes), read back with the streaming reader, then replayed on auto/subscription and
// auto/thrifty through the ladder, quota cache and spend ledger. Run: pnpm --filter planfirst
// bench. The target: the whole month in under 5 s on this machine.
import { createWriteStream, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parsePlanAllowances } from "../src/simulate/plan-allowance";
import { readTrace } from "../src/simulate/read-trace";
import { simulate } from "../src/simulate/simulation";
import { fixtureSetup } from "../src/simulate/simulation-test-support";

const REQUESTS = 100_000;
const MONTH_MS = 30 * 86_400_000;
const START_MS = Date.parse("2026-11-01T00:00:00Z");

/** A small deterministic generator (mulberry32), so every run replays the same month. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

async function writeMonth(file: string): Promise<void> {
  const next = random(17);
  const out = createWriteStream(file);
  const models = [
    "claude-sonnet-4-5-20250929",
    "claude-sonnet-4-5-20250929",
    "claude-haiku-4-5",
    "claude-opus-4-5",
  ];
  for (let i = 0; i < REQUESTS; i++) {
    const timeMs = START_MS + Math.floor((i / REQUESTS) * MONTH_MS + next() * 20_000);
    const line = {
      type: "assistant",
      sessionId: "bench",
      cwd: "/home/dev/project",
      timestamp: new Date(timeMs).toISOString(),
      message: {
        id: `msg_${i}`,
        model: models[Math.floor(next() * models.length)],
        role: "assistant",
        content: [{ type: "text", text: "x".repeat(200) }],
        usage: {
          input_tokens: 50 + Math.floor(next() * 4000),
          cache_read_input_tokens: Math.floor(next() * 60_000),
          cache_creation_input_tokens: Math.floor(next() * 4000),
          output_tokens: 100 + Math.floor(next() * 2000),
        },
      },
    };
    const text = JSON.stringify(line);
    if (!out.write(`${text}\n`))
      await new Promise<void>((resolve) => out.once("drain", () => resolve()));
    // One in three responses also has a tool_use block: Claude Code writes the same message again.
    if (i % 3 === 0 && !out.write(`${text}\n`))
      await new Promise<void>((resolve) => out.once("drain", () => resolve()));
  }
  await new Promise<void>((resolve, reject) =>
    out.end((error?: Error | null) => (error ? reject(error) : resolve())),
  );
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "planfirst-bench-simulate-"));
  try {
    const file = join(dir, "month.jsonl");
    await writeMonth(file);
    const { config, table } = fixtureSetup("claude");
    const plan = parsePlanAllowances("claude-max=40usd/5h,claude-max=400usd/7d");
    if (!plan.ok) throw new Error(plan.problems.join("; "));

    const rows: string[][] = [];
    for (let run = 0; run < 3; run++) {
      const t0 = performance.now();
      const trace = await readTrace([file]);
      const t1 = performance.now();
      const result = await simulate({
        config,
        table,
        trace,
        ids: ["auto/subscription", "auto/thrifty"],
        allowances: plan.allowances,
        scenarios: [{ label: "config" }],
      });
      const t2 = performance.now();
      const thrifty = result.scenarios[0]!.replays[1]!;
      rows.push([
        String(run + 1),
        String(trace.records.length),
        (t1 - t0).toFixed(0),
        (t2 - t1).toFixed(0),
        (t2 - t0).toFixed(0),
        String(thrifty.servedByRung.subscription),
        String(thrifty.servedByRung.cheap),
      ]);
    }
    const sizeMb = (statSync(file).size / 1_048_576).toFixed(1);
    console.log(
      `planfirst simulate: ${REQUESTS.toLocaleString("en-US")} requests over 30 days, ${sizeMb} MB of Claude Code log, 2 routing ids`,
    );
    const header = [
      "run",
      "requests",
      "read ms",
      "replay ms",
      "total ms",
      "thrifty plan",
      "thrifty cheap",
    ];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
    const line = (cells: string[]) => cells.map((cell, i) => cell.padStart(widths[i]!)).join("  ");
    console.log(line(header));
    for (const row of rows) console.log(line(row));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
