import type { StreamEncoder } from "../codec";
import type { IrStreamError, IrStreamPart } from "../ir";
import type { SseEvent } from "../types";

/** A stream part a protocol encoder writes itself: everything but `start` and `error`. */
export type EncodedStreamPart = Exclude<IrStreamPart, { type: "start" | "error" }>;

/**
 * The lifecycle every client stream encoder shares, whatever its protocol: the opening frames
 * once, before anything else; an upstream `start` only names the stream; after a `finish` or an
 * error nothing more is written, and an error ends the stream once, with the protocol's error
 * frames, so a client never sees a completion after a failure or a cut answer as a whole one.
 */
export abstract class StreamEncoderBase implements StreamEncoder {
  private started = false;
  private closed = false;

  push(part: IrStreamPart): SseEvent[] {
    if (this.closed) return [];
    if (part.type === "error") return this.fail(part.error);
    const out: SseEvent[] = [];
    if (part.type === "start") {
      if (part.id) this.adoptId(part.id);
      this.begin(out);
      return out;
    }
    this.begin(out);
    if (part.type === "finish") this.closed = true;
    this.encode(part, out);
    return out;
  }

  fail(error: IrStreamError): SseEvent[] {
    if (this.closed) return [];
    this.closed = true;
    return this.errorFrames(error);
  }

  /** Writes the opening frames, the first time only. */
  protected begin(out: SseEvent[]): void {
    if (this.started) return;
    this.started = true;
    this.writeStart(out);
  }

  /** Takes the upstream's id for the stream (before the opening frames, which carry it). */
  protected abstract adoptId(id: string): void;
  /** The protocol's opening frames. */
  protected abstract writeStart(out: SseEvent[]): void;
  /** The protocol's frames for one part; after a `finish` the stream is already closed. */
  protected abstract encode(part: EncodedStreamPart, out: SseEvent[]): void;
  /** The protocol's frames ending the stream on an error. */
  protected abstract errorFrames(error: IrStreamError): SseEvent[];
}
