import type { QuotaWindow } from "../quota-state";
import type { OverageSignal, ResponseSignals, UpstreamFailure } from "../upstream-failure";
import { classifyAnthropicError } from "./anthropic-error";
import { finiteNumber, isoFromMs, makeWindow } from "./normalise";
import { claudeHeaderEvidence } from "./overage-signals";
import { parseEpoch } from "./parse-epoch";
import {
  finishSignals,
  makeFailure,
  type ResponseContext,
  type ResponseInput,
  toContext,
} from "./response-input";

const PREFIX = "anthropic-ratelimit-unified-";
const WINDOW_HEADER =
  /^anthropic-ratelimit-unified-(.+)-(utilization|reset|status|surpassed-threshold)$/;

type UnifiedStatus = "allowed" | "allowed_warning" | "rejected";

function unifiedStatus(value: string | undefined): UnifiedStatus | undefined {
  const lower = value?.toLowerCase();
  return lower === "allowed" || lower === "allowed_warning" || lower === "rejected"
    ? lower
    : undefined;
}

interface WindowKey {
  windowId: string;
  windowSeconds: number | null;
  model?: string;
}

/** Weekly buckets that are not a model: overage-included (`oi`) and OAuth-app usage. */
const ACCOUNT_WIDE_WEEKLY = new Set(["oi", "overage_included", "oauth_apps"]);

/** Header slot (`5h`, `7d`, `7d_sonnet`, `7d_oi`) → window. */
function keyFromSlot(slot: string): WindowKey | undefined {
  if (slot === "5h") return { windowId: "5h", windowSeconds: 18_000 };
  if (slot === "7d") return { windowId: "7d", windowSeconds: 604_800 };
  const weekly = /^7d[_-](.+)$/.exec(slot);
  if (!weekly) return undefined;
  return weeklyKey(weekly[1]!);
}

function weeklyKey(suffix: string): WindowKey {
  const name = suffix.toLowerCase();
  if (ACCOUNT_WIDE_WEEKLY.has(name)) return { windowId: `7d_${name}`, windowSeconds: 604_800 };
  return { windowId: `7d:${name}`, windowSeconds: 604_800, model: name };
}

/** Representative claim (`five_hour`, `seven_day_opus`…) → window; `overage` → undefined. */
function keyFromClaim(claim: string | undefined): WindowKey | undefined {
  const name = claim?.toLowerCase();
  if (name === "five_hour") return { windowId: "5h", windowSeconds: 18_000 };
  if (name === "seven_day") return { windowId: "7d", windowSeconds: 604_800 };
  const weekly = name ? /^seven_day_(.+)$/.exec(name) : null;
  return weekly ? weeklyKey(weekly[1]!) : undefined;
}

interface SlotReading {
  key: WindowKey;
  utilization: number | null;
  resetMs: number | null;
  status: UnifiedStatus | undefined;
  surpassed: boolean;
}

function readSlots(context: ResponseContext): Map<string, SlotReading> {
  const slots = new Map<string, SlotReading>();
  for (const name of context.headers.keys()) {
    const match = WINDOW_HEADER.exec(name);
    if (!match) continue;
    const slot = match[1]!;
    if (slot.startsWith("overage") || slot.startsWith("fallback")) continue;
    const key = keyFromSlot(slot);
    if (!key || slots.has(key.windowId)) continue;
    const get = (suffix: string) => context.headers.get(`${PREFIX}${slot}-${suffix}`);
    const utilization = finiteNumber(get("utilization"));
    const resetMs = parseEpoch(get("reset"));
    const status = unifiedStatus(get("status"));
    const surpassed = finiteNumber(get("surpassed-threshold")) !== null;
    // An all-zero slot is no window at all (pitfall 6).
    if ((utilization === null || utilization === 0) && resetMs === null && status === undefined) {
      continue;
    }
    slots.set(key.windowId, {
      key,
      utilization: utilization !== null && utilization >= 0 ? utilization : null,
      resetMs,
      status,
      surpassed,
    });
  }
  return slots;
}

function readOverage(
  context: ResponseContext,
  overallRejected: boolean,
): OverageSignal | undefined {
  const status = unifiedStatus(context.headers.get(`${PREFIX}overage-status`));
  if (!status) return undefined;
  const overage: OverageSignal = { status };
  const reason = context.headers.get(`${PREFIX}overage-disabled-reason`);
  if (reason) overage.disabledReason = reason.slice(0, 200);
  const inUseHeader = context.headers.get(`${PREFIX}overage-in-use`)?.toLowerCase();
  overage.inUse =
    inUseHeader === "true" || inUseHeader === "1"
      ? true
      : inUseHeader === "false" || inUseHeader === "0"
        ? false
        : overallRejected && status !== "rejected";
  const resetMs = parseEpoch(context.headers.get(`${PREFIX}overage-reset`));
  if (resetMs !== null) overage.resetAt = isoFromMs(resetMs);
  return overage;
}

/**
 * Signals from a Claude Pro/Max (Claude Code OAuth) response (quota-signals.md §2a).
 *
 * - Windows from `anthropic-ratelimit-unified-{5h,7d,7d_<x>}-*`: utilization is a fraction used
 *   (0..1, may exceed 1; kept raw in `rawUsedPercent`), resets are epoch seconds. `7d_<model>`
 *   windows are scoped to that model (`7d:sonnet`); `7d_oi` is account-wide.
 * - The representative claim names the binding window: with `unified-status: rejected` that
 *   window is exhausted until `unified-reset` (else its own reset, else Retry-After). While the
 *   status is `allowed`, a non-binding window at 100 % is only a warning (pitfall 7).
 * - Overage status, disabled reason and use are reported on `overage`, and as evidence
 *   (`allowed*` → on, `rejected` with a disabled reason → off).
 * - A 400/429 naming "extra usage" is a `money_refusal` (evidence on), never a spent window.
 * - A 429 with no unified headers is a model-scoped limit: `rate_limited` scoped to the request's
 *   model, with no reset invented (pitfall 9). 529 → overloaded, no window exhausted.
 */
export function parseClaudeSubscriptionResponse(input: ResponseInput): ResponseSignals {
  const context = toContext(input);
  const headerStatus = unifiedStatus(context.headers.get(`${PREFIX}status`));
  const claimKey = keyFromClaim(context.headers.get(`${PREFIX}representative-claim`));
  const overallResetMs = parseEpoch(context.headers.get(`${PREFIX}reset`));
  const slots = readSlots(context);
  const hasUnified = headerStatus !== undefined || slots.size > 0;
  const classified = classifyAnthropicError(context);
  // A money refusal is about billing, not the plan's windows: its 429 spends no window.
  const moneyRefusal = classified?.kind === "money_refusal";
  // The client treats any 429 as rejected, even when no headers came back.
  const rejected =
    headerStatus === "rejected" || (context.status === 429 && hasUnified && !moneyRefusal);
  const overloaded = classified?.kind === "overloaded";
  const retryAtMs = context.retryAt === null ? null : Date.parse(context.retryAt);

  const windows: QuotaWindow[] = [];
  for (const slot of slots.values()) {
    const binding = claimKey?.windowId === slot.key.windowId;
    const bindingRejected = binding && rejected && !overloaded;
    const used = slot.utilization;
    windows.push(
      makeWindow({
        windowId: slot.key.windowId,
        scope: slot.key.model ? { model: slot.key.model } : undefined,
        remainingPercent: bindingRejected
          ? 0
          : used === null
            ? null
            : 100 * (1 - Math.min(1, used)),
        resetAtMs: bindingRejected ? (overallResetMs ?? slot.resetMs ?? retryAtMs) : slot.resetMs,
        windowSeconds: slot.key.windowSeconds,
        rejected: bindingRejected || (slot.status === "rejected" && !overloaded),
        warning:
          slot.status === "allowed_warning" ||
          slot.surpassed ||
          (binding && headerStatus === "allowed_warning"),
        allowed:
          overloaded ||
          slot.status === "allowed" ||
          slot.status === "allowed_warning" ||
          headerStatus === "allowed" ||
          headerStatus === "allowed_warning",
        rawUsedPercent: used === null ? null : used * 100,
        source: "header",
        observedAt: context.observedAt,
      }),
    );
  }
  if (claimKey && rejected && !overloaded && !slots.has(claimKey.windowId)) {
    windows.push(
      makeWindow({
        windowId: claimKey.windowId,
        scope: claimKey.model ? { model: claimKey.model } : undefined,
        remainingPercent: 0,
        resetAtMs: overallResetMs ?? retryAtMs,
        windowSeconds: claimKey.windowSeconds,
        rejected: true,
        source: "header",
        observedAt: context.observedAt,
      }),
    );
  }

  let failure: UpstreamFailure | undefined;
  if (classified?.kind === "rate_limited" && context.status === 429) {
    if (hasUnified) {
      const claimed = claimKey ? windows.find((w) => w.windowId === claimKey.windowId) : undefined;
      const overageClaim = context.headers.get(`${PREFIX}representative-claim`) === "overage";
      const resetAt =
        claimed?.resetAt ??
        isoFromMs(
          overageClaim
            ? (parseEpoch(context.headers.get(`${PREFIX}overage-reset`)) ?? overallResetMs)
            : overallResetMs,
        );
      failure = makeFailure("window_exhausted", {
        resetAt,
        retryAt: context.retryAt ?? resetAt,
        windowId: claimKey?.windowId ?? (overageClaim ? "overage" : undefined),
        model: claimKey?.model,
        code: classified.code,
      });
    } else {
      failure = makeFailure("rate_limited", {
        retryAt: context.retryAt,
        model: context.model,
        code: classified.code,
      });
    }
  } else if (classified) {
    failure = classified;
  }

  const signals = finishSignals(context, windows, failure);
  const overage = readOverage(context, headerStatus === "rejected");
  if (overage) signals.overage = overage;
  const evidence = moneyRefusal
    ? {
        evidence: "on" as const,
        observedAt: context.observedAt,
        source: "claude-money-refusal",
        detail: `HTTP ${context.status} extra usage`,
      }
    : claudeHeaderEvidence(overage, context.observedAt);
  if (evidence) signals.evidence = evidence;
  return signals;
}
