import { upstreamErrorMessage, upstreamErrorType } from "../http/error-body";
import type { BodyReply, ClientStreamSource, GatewayReply } from "../http/reply";
import { formatSseEvents, type IrStreamError, type SseEvent } from "../protocols";
import { isRecord, parseJsonObject, str } from "../protocols/ir/guards";
import type { WaitTimers } from "./waiting-room";

/** Options of {@link HeldStreamSource}. */
interface HeldStreamOptions {
  /** The client protocol's keep-alive text (`ClientWire.keepAlive`). */
  keepAlive: string;
  /** The client protocol's error frames for a stream under way (`RelayProfile.errorFrames`). */
  errorFrames(error: IrStreamError): SseEvent[];
  /** Time between two keep-alive frames, milliseconds (transport time, not the gateway clock). */
  keepAliveMs: number;
  timers: WaitTimers;
}

type Settled =
  | { readonly kind: "stream"; readonly source: ClientStreamSource; started: boolean }
  | { readonly kind: "frames"; readonly text: string };

const END = { text: "", done: true } as const;

/**
 * The client side of a streaming request whose headers left while it still waits for a plan
 * (ladder.md §17, WAIT6): it opens with the protocol's keep-alive and repeats it every
 * `keepAliveMs` until the answer is known. A stream answer then continues the same client stream
 * from its first bytes; anything else (the 429 the wait became, an upstream refusal) ends it with
 * the protocol's error frames, never a clean end. A client that goes away cancels whichever
 * answer comes.
 */
export class HeldStreamSource implements ClientStreamSource {
  readonly first: string;
  private settled: Settled | null = null;
  private wake: (() => void) | null = null;
  private cancelled = false;
  private ended = false;

  constructor(private readonly options: HeldStreamOptions) {
    this.first = options.keepAlive;
  }

  /** The held request was answered: a stream goes on from its first bytes, a body is an error. */
  answer(reply: GatewayReply): void {
    if (this.settled) return;
    if (reply.kind === "stream") {
      if (this.cancelled) {
        reply.source.cancel();
        return;
      }
      this.settled = { kind: "stream", source: reply.source, started: false };
    } else {
      // A streaming request gets a whole body only when an upstream refused it (a 4xx).
      this.settled = { kind: "frames", text: this.errorFrames(bodyError(reply)) };
    }
    this.wake?.();
  }

  /** The held request failed (`error` as the protocol's error frame reads it). */
  fail(error: IrStreamError): void {
    if (this.settled) return;
    this.settled = { kind: "frames", text: this.errorFrames(error) };
    this.wake?.();
  }

  async next(): Promise<{ text: string; done: boolean }> {
    if (this.ended || this.cancelled) return END;
    if (this.settled === null) {
      await this.keepAliveOrAnswer();
      if (this.cancelled) return END;
      if (this.settled === null) return { text: this.options.keepAlive, done: false };
    }
    const settled: Settled = this.settled;
    if (settled.kind === "frames") {
      this.ended = true;
      return { text: settled.text, done: true };
    }
    if (!settled.started) {
      settled.started = true;
      return { text: settled.source.first, done: false };
    }
    const next = await settled.source.next();
    if (next.done) this.ended = true;
    return next;
  }

  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    if (this.settled?.kind === "stream") this.settled.source.cancel();
    this.wake?.();
  }

  /** Resolves after `keepAliveMs`, or earlier when the answer comes or the client goes away. */
  private keepAliveOrAnswer(): Promise<void> {
    const { timers, keepAliveMs } = this.options;
    return new Promise((resolve) => {
      const handle = timers.set(() => {
        this.wake = null;
        resolve();
      }, keepAliveMs);
      this.wake = () => {
        timers.clear(handle);
        this.wake = null;
        resolve();
      };
    });
  }

  private errorFrames(error: IrStreamError): string {
    return formatSseEvents(this.options.errorFrames(error));
  }
}

/** What an error body a route would have answered says, for an error frame. */
function bodyError(reply: BodyReply): IrStreamError {
  const body = parseJsonObject(reply.body) ?? undefined;
  const error = body?.error;
  const code = (isRecord(error) ? str(error.code) : undefined) ?? `upstream_${reply.status}`;
  return {
    type: upstreamErrorType(body) ?? "api_error",
    code,
    message: upstreamErrorMessage(body, `the upstream answered ${reply.status}`),
  };
}
