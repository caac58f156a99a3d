import fc from "fast-check";
import { expect, it } from "vitest";
import type { QuotaWindow } from "../quota-state";
import type { ResponseSignals, UpstreamFailure } from "../upstream-failure";
import {
  body,
  fixturesFor,
  mutated,
  observedAtMs,
  type ResponseFixture,
  RUNS,
  responseInputFrom,
} from "./fuzz-arbitraries";
import type { ResponseInput } from "./response-input";

/** Expects null or an ISO-8601 instant in `toISOString` form. */
export function expectIsoOrNull(value: unknown): void {
  if (value === null) return;
  expect(typeof value).toBe("string");
  const ms = Date.parse(value as string);
  expect(Number.isNaN(ms)).toBe(false);
  expect(new Date(ms).toISOString()).toBe(value);
}

function expectFiniteEverywhere(value: unknown): void {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    if (typeof current === "number") expect(Number.isFinite(current)).toBe(true);
    else if (typeof current === "object" && current !== null) stack.push(...Object.values(current));
  }
}

/** Expects a window a parser may return: id, percent in 0..100, valid instants, finite numbers. */
export function expectValidWindow(window: QuotaWindow): void {
  expect(typeof window.windowId).toBe("string");
  expect(window.windowId.length).toBeGreaterThan(0);
  if (window.remainingPercent !== null) {
    expect(window.remainingPercent).toBeGreaterThanOrEqual(0);
    expect(window.remainingPercent).toBeLessThanOrEqual(100);
  }
  expectIsoOrNull(window.resetAt);
  expect(window.observedAt).not.toBeNull();
  expectIsoOrNull(window.observedAt);
  expect(["ok", "warning", "exhausted"]).toContain(window.status);
  if (window.windowSeconds !== undefined) expect(window.windowSeconds).toBeGreaterThan(0);
  if (window.scope !== undefined) expect(typeof window.scope.model).toBe("string");
  expectFiniteEverywhere(window);
}

function expectValidFailure(failure: UpstreamFailure): void {
  expect([
    "rate_limited",
    "window_exhausted",
    "credits_exhausted",
    "overloaded",
    "auth_invalid",
    "money_refusal",
    "misconfigured",
    "client_refused",
  ]).toContain(failure.kind);
  expectIsoOrNull(failure.retryAt);
  expectIsoOrNull(failure.resetAt);
}

/** Expects signals a parser may return: valid windows, failure, overage and evidence. */
export function expectValidSignals(signals: ResponseSignals): void {
  expect(Array.isArray(signals.windows)).toBe(true);
  for (const window of signals.windows) expectValidWindow(window);
  if (signals.failure) expectValidFailure(signals.failure);
  if (signals.overage?.resetAt !== undefined) expectIsoOrNull(signals.overage.resetAt);
  if (signals.evidence) {
    expect(["on", "off"]).toContain(signals.evidence.evidence);
    expectIsoOrNull(signals.evidence.observedAt);
    expect(signals.evidence.observedAt).not.toBeNull();
  }
  expectFiniteEverywhere(signals);
}

/**
 * The property of a response parser: over arbitrary responses and the family's fixtures
 * (`prefixes` of their file names) with hostile leaves, it never throws and keeps the
 * invariants.
 */
export function itKeepsResponseInvariants(
  name: string,
  parse: (input: ResponseInput) => ResponseSignals,
  prefixes: string[],
): void {
  const family = fixturesFor(...prefixes) as ResponseFixture[];
  it(`${name}: arbitrary headers and bodies never throw, NaN, out-of-range percent or invalid dates`, () => {
    fc.assert(
      fc.property(responseInputFrom(family), (input) => expectValidSignals(parse(input))),
      RUNS,
    );
  });
}

/**
 * The property of a usage endpoint parser: over arbitrary payloads and the family's fixtures
 * with hostile leaves, every window it returns keeps the invariants.
 */
export function itKeepsUsageInvariants(
  name: string,
  parse: (payload: unknown, at: number) => QuotaWindow[],
  prefixes: string[],
): void {
  const family = mutated(fixturesFor(...prefixes));
  it(`${name}: arbitrary payloads keep the window invariants`, () => {
    fc.assert(
      fc.property(fc.oneof(body, family, family), observedAtMs, (payload, at) => {
        for (const window of parse(payload, at)) expectValidWindow(window);
      }),
      RUNS,
    );
  });
}
