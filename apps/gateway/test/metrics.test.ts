import { claudeRateLimited } from "@planfirst/fake-upstream";
import { beforeAll, describe, expect, it } from "vitest";
import { claudeUsagePayload, STANDARD_FAKES, standardConfig, TEST_ENV } from "./fixtures";
import { chatBody, messagesBody, post, useTestBed } from "./harness";

const bed = useTestBed(STANDARD_FAKES, {
  gateway: (fakes) => ({ config: standardConfig(fakes), env: TEST_ENV }),
});
let exposition: string;

const hour = 3_600_000;

/** One sample line of the text exposition format, parsed. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const SAMPLE_LINE =
  /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*"(?:,(?=[a-zA-Z_]))?)*\})? (\S+)(?: (-?\d+))?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"/g;
const TYPES = new Set(["counter", "gauge", "histogram", "summary", "untyped"]);

function parseValue(text: string): number {
  if (text === "+Inf") return Number.POSITIVE_INFINITY;
  if (text === "-Inf") return Number.NEGATIVE_INFINITY;
  if (text === "NaN") return Number.NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) {
    throw new Error(`not a sample value: ${text}`);
  }
  return Number(text);
}

function familyOf(name: string, types: Map<string, string>): string | undefined {
  if (types.has(name)) return name;
  for (const suffix of ["_bucket", "_sum", "_count"]) {
    const base = name.endsWith(suffix) ? name.slice(0, -suffix.length) : null;
    if (base && types.get(base) === "histogram") return base;
  }
  return undefined;
}

/**
 * Parses the Prometheus text format (version 0.0.4) strictly: every line is a HELP, a TYPE or a
 * sample; each family is typed once, before its samples; no sample appears twice.
 */
function parseExposition(text: string): Sample[] {
  expect(text.endsWith("\n")).toBe(true);
  const types = new Map<string, string>();
  const helps = new Set<string>();
  const seen = new Set<string>();
  const samples: Sample[] = [];
  for (const line of text.slice(0, -1).split("\n")) {
    if (line.startsWith("#")) {
      const match = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
      if (!match) throw new Error(`bad comment line: ${line}`);
      const [, kind, name, rest] = match;
      expect(name).toMatch(METRIC_NAME);
      if (kind === "TYPE") {
        if (types.has(name!)) throw new Error(`TYPE given twice for ${name}`);
        if (!TYPES.has(rest!)) throw new Error(`unknown type in: ${line}`);
        types.set(name!, rest!);
      } else {
        if (helps.has(name!)) throw new Error(`HELP given twice for ${name}`);
        helps.add(name!);
      }
      continue;
    }
    const match = SAMPLE_LINE.exec(line);
    if (!match) throw new Error(`bad sample line: ${JSON.stringify(line)}`);
    const [, name, labelText = "", value] = match;
    if (!familyOf(name!, types)) throw new Error(`sample before its TYPE: ${line}`);
    const key = `${name}${labelText}`;
    if (seen.has(key)) throw new Error(`duplicate sample: ${key}`);
    seen.add(key);
    const labels: Record<string, string> = {};
    for (const [, labelName, labelValue] of labelText.matchAll(LABEL)) {
      labels[labelName!] = labelValue!.replace(/\\n/g, "\n").replace(/\\(["\\])/g, "$1");
    }
    samples.push({ name: name!, labels, value: parseValue(value!) });
  }
  return samples;
}

function find(samples: Sample[], name: string, labels: Record<string, string>): Sample[] {
  return samples.filter(
    (sample) =>
      sample.name === name &&
      Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
}

function sampleValue(samples: Sample[], name: string, labels: Record<string, string>): number {
  const matching = find(samples, name, labels);
  expect(matching, `${name}${JSON.stringify(labels)}`).toHaveLength(1);
  return matching[0]!.value;
}

beforeAll(async () => {
  const { fakes, harness } = bed;
  const now = harness.clock.now();
  fakes.plan.usage(claudeUsagePayload(25, now + 2 * hour), { endpoint: "claude" });
  await harness.server.gateway.refreshUsage();

  // Two served on the plan, one 400 from the plan, then the plan runs out: one request falls
  // through to the cheap rung, and one concrete paid request.
  for (let i = 0; i < 2; i++) {
    await post(harness.url, "/v1/messages", messagesBody("auto/subscription"));
  }
  fakes.plan.script([
    {
      status: 400,
      body: { type: "error", error: { type: "invalid_request_error", message: "x" } },
    },
    claudeRateLimited({ resetAtSec: Math.floor((now + hour) / 1000), retryAfterSec: 3600 }),
  ]);
  await post(harness.url, "/v1/messages", messagesBody("auto/thrifty"));
  await post(harness.url, "/v1/chat/completions", chatBody("auto/thrifty"));
  fakes.router.script([{ usage: { inputTokens: 10_000, outputTokens: 1_000 } }]);
  await post(harness.url, "/v1/chat/completions", chatBody("qwen/qwen3-coder"));
  const response = await fetch(`${harness.url}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  exposition = await response.text();
});
describe("GET /metrics (Prometheus text exposition)", () => {
  it("is valid exposition format, line by line", () => {
    const samples = parseExposition(exposition);
    expect(samples.length).toBeGreaterThan(0);
  });

  it("counts requests by rung, connection and outcome", () => {
    const samples = parseExposition(exposition);
    const requests = "planfirst_requests_total";
    expect(
      sampleValue(samples, requests, {
        rung: "subscription",
        connection: "claude-plan",
        outcome: "ok",
      }),
    ).toBe(2);
    expect(
      sampleValue(samples, requests, {
        rung: "subscription",
        connection: "claude-plan",
        outcome: "client_error",
      }),
    ).toBe(1);
    expect(
      sampleValue(samples, requests, { rung: "cheap", connection: "openrouter", outcome: "ok" }),
    ).toBe(2);
  });

  it("counts fall-throughs by rung, connection and reason", () => {
    const samples = parseExposition(exposition);
    const fallthroughs = find(samples, "planfirst_fallthroughs_total", {});
    // The 429 is the one fall-through; the 400 was answered, not passed on.
    expect(fallthroughs).toEqual([
      {
        name: "planfirst_fallthroughs_total",
        labels: { rung: "subscription", connection: "claude-plan", reason: "window_exhausted" },
        value: 1,
      },
    ]);
  });

  it("reports quota remaining per connection and window", () => {
    const samples = parseExposition(exposition);
    const quota = find(samples, "planfirst_quota_remaining_percent", { connection: "claude-plan" });
    const byWindow = Object.fromEntries(
      quota.map((sample) => [sample.labels.window, sample.value]),
    );
    // The 429 read the 5-hour window as spent; the week window as the 429's headers said.
    expect(byWindow["5h"]).toBe(0);
    expect(byWindow["7d"]).toBe(41);
    for (const sample of quota) {
      expect(sample.value).toBeGreaterThanOrEqual(0);
      expect(sample.value).toBeLessThanOrEqual(100);
    }
  });

  it("reports spend per paid rung against its budget", () => {
    const samples = parseExposition(exposition);
    const spent = sampleValue(samples, "planfirst_rung_spend_usd", { rung: "cheap" });
    // At $0.20 / $0.80 per MTok, each rounded up to the micro-dollar: the default reply (12 in,
    // 1 out: $0.0000032 → $0.000004) and one of 10 000 in, 1 000 out ($0.0028).
    expect(spent).toBe(0.002804);
    expect(sampleValue(samples, "planfirst_rung_budget_usd", { rung: "cheap" })).toBe(5);
    expect(sampleValue(samples, "planfirst_rung_reserved_usd", { rung: "cheap" })).toBe(0);
    expect(sampleValue(samples, "planfirst_rung_spend_usd", { rung: "premium" })).toBe(0);
    // The premium rung has no budget: no budget sample rather than a made-up one.
    expect(find(samples, "planfirst_rung_budget_usd", { rung: "premium" })).toHaveLength(0);
  });

  it("has an upstream latency histogram per connection with consistent buckets", () => {
    const samples = parseExposition(exposition);
    expect(exposition).toContain("# TYPE planfirst_upstream_latency_seconds histogram");
    const expectedResponses = { "claude-plan": 4, openrouter: 2 };
    for (const [connection, responses] of Object.entries(expectedResponses)) {
      const buckets = find(samples, "planfirst_upstream_latency_seconds_bucket", { connection });
      expect(buckets.length).toBeGreaterThan(1);
      const bounds = buckets.map((bucket) => parseValue(bucket.labels.le!));
      expect(bounds.at(-1)).toBe(Number.POSITIVE_INFINITY);
      for (let i = 1; i < buckets.length; i++) {
        expect(bounds[i]!).toBeGreaterThan(bounds[i - 1]!);
        expect(buckets[i]!.value).toBeGreaterThanOrEqual(buckets[i - 1]!.value);
      }
      const count = sampleValue(samples, "planfirst_upstream_latency_seconds_count", {
        connection,
      });
      expect(count).toBe(responses);
      expect(buckets.at(-1)!.value).toBe(count);
      const sum = sampleValue(samples, "planfirst_upstream_latency_seconds_sum", { connection });
      expect(sum).toBeGreaterThan(0);
    }
  });
});
