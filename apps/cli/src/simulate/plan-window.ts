import type { QuotaWindow } from "@planfirst/quota-cache";
import { type PlanAllowance, windowEndMs } from "./plan-allowance";

/**
 * One plan window of one connection during a replay: how much of its allowance is used and when
 * it resets. A window opens with the first request after its previous reset (Claude and Codex
 * count from first use), or at the calendar month for monthly plans.
 */
export interface PlanWindowState {
  readonly connectionId: string;
  readonly allowance: PlanAllowance;
  /** Used in the current window, in the allowance's unit. */
  used: number;
  /** Epoch ms of the current window's reset; null while no window is open. */
  resetAtMs: number | null;
  /** Resets that happened after the window had been used, epoch ms. */
  readonly resets: number[];
  /** Instants the window reached the exit cutoff, epoch ms. */
  readonly exhaustions: number[];
  /** Highest share used in any window, percent (may pass 100: the request that crossed it). */
  peakUsedPercent: number;
}

/** A fresh, unused window for `allowance` on `connectionId`. */
export function createPlanWindow(connectionId: string, allowance: PlanAllowance): PlanWindowState {
  return {
    connectionId,
    allowance,
    used: 0,
    resetAtMs: null,
    resets: [],
    exhaustions: [],
    peakUsedPercent: 0,
  };
}

/** Percent of the allowance left, 0..100. */
export function remainingPercentOf(window: PlanWindowState): number {
  return Math.max(0, 100 * (1 - window.used / window.allowance.amount));
}

/** Closes the window if its reset is at or before `nowMs`; true when it reset. */
export function advancePlanWindow(window: PlanWindowState, nowMs: number): boolean {
  if (window.resetAtMs === null || window.resetAtMs > nowMs) return false;
  window.resets.push(window.resetAtMs);
  window.used = 0;
  window.resetAtMs = null;
  return true;
}

/**
 * Books `amount` (in the allowance's unit) on the window at `nowMs`, opening it if needed, and
 * notes the instant it crossed `exitCutoffPercent` remaining.
 */
export function usePlanWindow(
  window: PlanWindowState,
  amount: number,
  nowMs: number,
  exitCutoffPercent: number,
): void {
  window.resetAtMs ??= windowEndMs(window.allowance.length, nowMs);
  const before = remainingPercentOf(window);
  window.used += amount;
  const after = remainingPercentOf(window);
  if (before > exitCutoffPercent && after <= exitCutoffPercent) window.exhaustions.push(nowMs);
  window.peakUsedPercent = Math.max(
    window.peakUsedPercent,
    (100 * window.used) / window.allowance.amount,
  );
}

/**
 * The window as the quota cache takes a reading: remaining percent, and the reset of the open
 * window (or, when none is open, when one opened now would reset).
 */
export function planWindowReading(
  window: PlanWindowState,
  nowMs: number,
  exitCutoffPercent: number,
): QuotaWindow {
  const remainingPercent = remainingPercentOf(window);
  const resetAtMs = window.resetAtMs ?? windowEndMs(window.allowance.length, nowMs);
  return {
    windowId: window.allowance.windowId,
    remainingPercent,
    resetAt: new Date(resetAtMs).toISOString(),
    status: remainingPercent <= exitCutoffPercent ? "exhausted" : "ok",
    source: "simulate",
    observedAt: new Date(nowMs).toISOString(),
  };
}
