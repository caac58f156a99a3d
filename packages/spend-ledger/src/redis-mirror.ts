import type { Redis } from "ioredis";
import type { RedisKeyLayout } from "./redis-keys";
import type { WindowTotals } from "./spend-store";

/** A window's totals as this store last knew them, with the sequence number they carried. */
interface MirrorEntry extends WindowTotals {
  nextExpiryMs: number;
  seq: number;
}

/**
 * The in-memory mirror of each window's totals, by window member, from which the ledger's
 * synchronous reads come: updated from this store's script replies and other replicas' pub/sub
 * messages, ordered by each window's sequence number.
 */
export type WindowMirror = Map<string, MirrorEntry>;

/**
 * Takes a window's totals (decimal strings, `next` '' when no reservation is live) into the
 * mirror, unless it already holds ones of the same or a later sequence number: a late message
 * never overwrites newer state.
 */
export function applyTotals(
  mirror: WindowMirror,
  member: string,
  spent: string,
  reserved: string,
  next: string,
  seq: number,
): MirrorEntry {
  const current = mirror.get(member);
  if (current && current.seq >= seq) return current;
  const entry: MirrorEntry = {
    spentMicroUsd: Number(spent),
    reservedMicroUsd: Number(reserved),
    nextExpiryMs: next === "" ? Number.POSITIVE_INFINITY : Number(next),
    seq,
  };
  mirror.set(member, entry);
  return entry;
}

/** Takes another replica's published totals into the mirror; ignores a malformed message. */
export function applyPublished(mirror: WindowMirror, message: string): void {
  try {
    const event = JSON.parse(message) as {
      w: string;
      s: string;
      r: string;
      n: string;
      q: number;
    };
    applyTotals(mirror, event.w, event.s, event.r, event.n, Number(event.q));
  } catch {
    // A malformed message cannot come from our scripts; ignore it rather than crash.
  }
}

/** Loads the totals of every window the store's keys know into the mirror, in one pipeline. */
export async function loadMirror(
  client: Redis,
  layout: Pick<RedisKeyLayout, "windowsKey" | "windowKeys">,
  mirror: WindowMirror,
): Promise<void> {
  const members = await client.smembers(layout.windowsKey);
  if (members.length === 0) return;
  const pipeline = client.pipeline();
  for (const member of members) {
    const [win, live] = layout.windowKeys(member);
    pipeline.hmget(win!, "spent", "reserved", "seq");
    pipeline.zrange(live!, 0, 0, "WITHSCORES");
  }
  const replies = (await pipeline.exec()) ?? [];
  members.forEach((member, index) => {
    const [hashError, hash] = replies[index * 2] ?? [];
    const [zsetError, first] = replies[index * 2 + 1] ?? [];
    if (hashError || zsetError) throw hashError ?? zsetError;
    const [spent, reserved, seq] = hash as Array<string | null>;
    const next = (first as string[])[1] ?? "";
    applyTotals(mirror, member, spent ?? "0", reserved ?? "0", next, Number(seq ?? 0));
  });
}
