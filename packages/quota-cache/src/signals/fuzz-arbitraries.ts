import { readdirSync, readFileSync } from "node:fs";
import fc from "fast-check";
import type { ResponseInput } from "./response-input";

/** Runs of each fuzz property. */
export const RUNS = { numRuns: 400 };

/** A recorded response fixture: status, headers and body. */
export type ResponseFixture = { status: number; headers: Record<string, string>; body?: unknown };

const fixtureDir = new URL("./__fixtures__/", import.meta.url);
const fixtureFiles = readdirSync(fixtureDir).filter((name) => name.endsWith(".json"));
const fixturesByName = new Map<string, unknown>(
  fixtureFiles.map((name) => [name, JSON.parse(readFileSync(new URL(name, fixtureDir), "utf8"))]),
);
const fixtures: unknown[] = [...fixturesByName.values()];
/** Fixtures whose file name starts with one of the prefixes. */
export function fixturesFor(...prefixes: string[]): unknown[] {
  const chosen = [...fixturesByName]
    .filter(([name]) => prefixes.some((prefix) => name.startsWith(prefix)))
    .map(([, fixture]) => fixture);
  if (chosen.length === 0) throw new Error(`no fixture for ${prefixes.join(", ")}`);
  return chosen;
}
const responseFixtures = fixtures.filter(
  (f): f is ResponseFixture =>
    typeof f === "object" && f !== null && "status" in f && "headers" in f,
);

const knownHeaderNames = [
  ...new Set(responseFixtures.flatMap((f) => Object.keys(f.headers))),
  "retry-after",
  "retry-after-ms",
  "x-ms-retry-after-ms",
  "ratelimit",
  "ratelimit-policy",
  "ratelimit-limit",
  "ratelimit-remaining",
  "ratelimit-reset",
  "anthropic-ratelimit-unified-overage-in-use",
  "x-codex-primary-reset-at",
  "x-ratelimit-reset",
];

const oddNumbers = [
  "",
  " ",
  "0",
  "-0",
  "-1",
  "1.0",
  "1.02",
  "100",
  "1e400",
  "9".repeat(400),
  "NaN",
  "Infinity",
  "-Infinity",
  "0x1F",
  "8640000000000001",
  "1e12",
  "99999999999999999999",
  "True",
  "False",
  "rejected",
  "allowed_warning",
  "Wed, 31 Feb 2026 07:28:00 GMT",
  "Sun, 06 Nov 1994 08:49:37 GMT",
  "2026-13-45T99:99:99Z",
  "2026-01-02T19:59:59.600956+00:00",
  "+275760-09-13T00:00:00Z",
  "1h2m3s",
  "-5s",
  "500ms",
  '"p";r=5;t=1e9',
  '"p";q=0;w=-1',
];

/** Header values: odd numbers and dates first, then any string or number. */
export const headerValue = fc.oneof(
  fc.constantFrom(...oddNumbers),
  fc.string(),
  fc.double().map(String),
  fc.integer().map(String),
  fc.bigInt().map(String),
);
/** Header maps: known quota header names and any others, with odd values. */
export const headers = fc.dictionary(
  fc.oneof(fc.constantFrom(...knownHeaderNames), fc.string({ minLength: 1 })),
  fc.oneof(headerValue, fc.array(headerValue, { maxLength: 3 })),
  { maxKeys: 20 },
);

const vocabulary = [
  "error",
  "type",
  "code",
  "message",
  "status",
  "details",
  "@type",
  "violations",
  "quotaId",
  "quotaDimensions",
  "model",
  "retryDelay",
  "reason",
  "metadata",
  "headers",
  "X-RateLimit-Reset",
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "limit_source",
  "resets_at",
  "resets_in_seconds",
  "five_hour",
  "seven_day",
  "seven_day_opus",
  "utilization",
  "limits",
  "kind",
  "group",
  "percent",
  "scope",
  "display_name",
  "surface",
  "severity",
  "rate_limit",
  "rate_limits",
  "primary_window",
  "secondary_window",
  "used_percent",
  "limit_window_seconds",
  "reset_at",
  "reset_after_seconds",
  "limit_reached",
  "additional_rate_limits",
  "metered_feature",
  "limit_name",
  "quota_snapshots",
  "premium_interactions",
  "chat",
  "percent_remaining",
  "entitlement",
  "remaining",
  "unlimited",
  "quota_reset_date",
  "quota_reset_date_utc",
  "buckets",
  "remainingFraction",
  "resetTime",
  "modelId",
  "tokenType",
  "models",
  "quotaInfo",
  "data",
  "limit",
  "limit_remaining",
  "limit_reset",
  "free_model_daily_requests",
];
const typeNames = [
  "type.googleapis.com/google.rpc.QuotaFailure",
  "type.googleapis.com/google.rpc.RetryInfo",
  "type.googleapis.com/google.rpc.ErrorInfo",
  "rate_limit_error",
  "overloaded_error",
  "usage_limit_reached",
  "insufficient_quota",
  "quota_exceeded",
  "RESOURCE_EXHAUSTED",
  "QUOTA_EXHAUSTED",
  "RATE_LIMIT_EXCEEDED",
  "GenerateRequestsPerDayPerProjectPerModel-FreeTier",
  "GenerateContentInputTokensPerModelPerMinute",
  "free-models-per-day",
  "upstream_provider_shared_pool",
  "weekly_scoped",
  "session",
  "weekly",
  "monthly",
  "daily",
];

const leaf = fc.oneof(
  fc.constantFrom(...oddNumbers, ...typeNames),
  fc.string(),
  fc.double(),
  fc.integer(),
  fc.constantFrom(null, true, false, Number.NaN, Number.POSITIVE_INFINITY, -1e308, 1e308, -0),
);
const { shaped } = fc.letrec<{ shaped: unknown }>((tie) => ({
  shaped: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc.array(tie("shaped"), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.constantFrom(...vocabulary), fc.string()), tie("shaped"), {
      maxKeys: 6,
    }),
  ),
}));

type Path = Array<string | number>;
function leafPaths(value: unknown, path: Path = []): Path[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => leafPaths(item, [...path, i]));
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value);
    return entries.length === 0 ? [path] : entries.flatMap(([k, v]) => leafPaths(v, [...path, k]));
  }
  return [path];
}
function withLeaf(value: unknown, path: Path, replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path;
  if (Array.isArray(value)) {
    const copy: unknown[] = [...value];
    copy[head as number] = withLeaf(copy[head as number], rest, replacement);
    return copy;
  }
  const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  copy[String(head)] = withLeaf(copy[String(head)], rest, replacement);
  return copy;
}
/** A recorded fixture with one to three leaves replaced by hostile values. */
export function mutated(from: unknown[]): fc.Arbitrary<unknown> {
  return fc
    .tuple(
      fc.constantFrom(...from),
      fc.array(fc.tuple(fc.nat(), fc.oneof(leaf, shaped)), { minLength: 1, maxLength: 3 }),
    )
    .map(([fixture, edits]) => {
      let value = fixture;
      for (const [index, replacement] of edits) {
        const paths = leafPaths(value);
        value = withLeaf(value, paths[index % paths.length]!, replacement);
      }
      return value;
    });
}
const mutatedFixture = mutated(fixtures);

/** Any body: JSON, shaped after provider answers, a mutated fixture, a string or anything. */
export const body = fc.oneof(fc.jsonValue(), shaped, mutatedFixture, fc.string(), fc.anything());
/** Observation instants, the impossible ones included. */
export const observedAtMs = fc.oneof(
  fc.integer({ min: 0, max: 4_102_444_800_000 }),
  fc.constantFrom(
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
    8.64e15,
    -8.64e15,
    0,
    1.7e12,
  ),
);
const status = fc.oneof(
  fc.constantFrom(200, 400, 401, 402, 403, 404, 429, 499, 500, 502, 503, 529),
  fc.integer(),
);
const model = fc.option(
  fc.oneof(fc.constantFrom("claude-opus-4-1", "gemini-2.5-pro", ""), fc.string()),
  {
    nil: undefined,
  },
);

/** Random responses, and family fixtures with hostile leaves and extra hostile headers. */
export function responseInputFrom(family: ResponseFixture[]): fc.Arbitrary<ResponseInput> {
  return fc.oneof(
    fc.record({ status, headers, body, observedAtMs, model }),
    fc
      .tuple(fc.constantFrom(...family), mutated(family), headers, observedAtMs, model)
      .map(([fixture, changed, extra, at, m]) => {
        const source = (typeof changed === "object" && changed !== null ? changed : fixture) as {
          status?: unknown;
          headers?: unknown;
          body?: unknown;
        };
        const baseHeaders =
          typeof source.headers === "object" && source.headers !== null
            ? source.headers
            : fixture.headers;
        return {
          status: typeof source.status === "number" ? source.status : fixture.status,
          headers: { ...(baseHeaders as Record<string, string>), ...extra },
          body: source.body,
          observedAtMs: at,
          model: m,
        };
      }),
  );
}
/** Random responses, and any fixture with hostile leaves and extra hostile headers. */
export const responseInput = responseInputFrom(responseFixtures);
