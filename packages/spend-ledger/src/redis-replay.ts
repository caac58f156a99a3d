import { ReplyError } from "ioredis";
import type { JournalEntry, SettleJournal } from "./settle-journal";
import type { StoreReleaseRequest, StoreSettleRequest } from "./spend-store";

/** What a journal replay needs of its store. */
interface JournalReplayOptions {
  journal: SettleJournal;
  /** Runs a journaled settle on Redis; rejects when Redis did not run it. */
  settle(request: StoreSettleRequest): Promise<unknown>;
  /** Runs a journaled release on Redis; rejects when Redis did not run it. */
  release(request: StoreReleaseRequest): Promise<unknown>;
  isClosed(): boolean;
  /** Told when an entry did not reach Redis (not when Redis refused it). */
  markDown(cause: unknown): void;
}

/**
 * Replays the journal, oldest first, pipelined; an entry leaves the journal only once Redis
 * has run its script (booked, or already finished: replay never books twice). A replay asked
 * for while one runs gets that one.
 */
export function createJournalReplay(options: JournalReplayOptions): () => Promise<void> {
  const { journal, settle, release, isClosed, markDown } = options;
  let replaying: Promise<void> | null = null;
  return (): Promise<void> => {
    if (replaying) return replaying;
    if (journal.size() === 0 || isClosed()) return Promise.resolve();
    replaying = (async () => {
      const entries = journal.entries();
      await Promise.all(
        entries.map(async (entry: JournalEntry) => {
          try {
            if (entry.kind === "settle") await settle(entry.request);
            else await release(entry.request);
            journal.remove(entry.request.reservationId);
          } catch (cause) {
            if (!(cause instanceof ReplyError)) markDown(cause);
          }
        }),
      );
    })().finally(() => {
      replaying = null;
    });
    return replaying;
  };
}
