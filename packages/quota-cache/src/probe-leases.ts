import { randomUUID } from "node:crypto";
import type { QuotaStore } from "./quota-store";

/** A probe lease taken with {@link QuotaCache.tryAcquireProbe} (rule P1). */
export interface ProbeLease {
  connectionId: string;
  /** Random id of this lease; only its holder can release it. */
  holder: string;
  /** ISO instant the lease lapses by itself if never released. */
  expiresAt: string;
  /** Gives the lease back (after the probe's answer was observed). Never rejects; idempotent. */
  release(): Promise<void>;
}

/** The probe lease part of the quota cache (see `QuotaCache.tryAcquireProbe`). */
interface ProbeLeases {
  tryAcquireProbe(connectionId: string, ttlMs: number): Promise<ProbeLease | null>;
  isProbeInFlight(connectionId: string): boolean;
}

/** Probe leases taken in `store` (P1), on the clock `now`. */
export function createProbeLeases(store: QuotaStore, now: () => number): ProbeLeases {
  // Probes this process holds or was refused, until their lease would lapse (isProbeInFlight).
  const probesInFlight = new Map<string, number>();

  async function tryAcquireProbe(connectionId: string, ttlMs: number): Promise<ProbeLease | null> {
    const nowMs = now();
    const leaseMs = Number.isFinite(ttlMs) && ttlMs > 0 ? Math.ceil(ttlMs) : 1;
    const holder = randomUUID();
    const name = `probe:${connectionId}`;
    let taken = false;
    try {
      taken = await store.acquireLease(name, holder, leaseMs, nowMs);
    } catch {
      taken = false;
    }
    probesInFlight.set(connectionId, nowMs + leaseMs);
    if (!taken) return null;
    let released = false;
    return {
      connectionId,
      holder,
      expiresAt: new Date(nowMs + leaseMs).toISOString(),
      async release() {
        if (released) return;
        released = true;
        probesInFlight.delete(connectionId);
        try {
          await store.releaseLease(name, holder);
        } catch {
          // The lease lapses by itself at expiresAt.
        }
      },
    };
  }

  function isProbeInFlight(connectionId: string): boolean {
    const untilMs = probesInFlight.get(connectionId);
    if (untilMs === undefined) return false;
    if (untilMs > now()) return true;
    probesInFlight.delete(connectionId);
    return false;
  }

  return { tryAcquireProbe, isProbeInFlight };
}
