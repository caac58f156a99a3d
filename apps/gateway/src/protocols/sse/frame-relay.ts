import { StringDecoder } from "node:string_decoder";
import { type ClientStream, type Codec, streamUsage } from "../codec";
import { type IrStreamError, type IrUsage, streamCutError } from "../ir";
import type { SseEvent } from "../types";
import { formatSse, formatSseEvents } from "./sse-format";
import { createSseParser, type SseParser } from "./sse-parser";

/** Options of {@link createFrameRelay}. */
interface FrameRelayOptions {
  /**
   * Frames the client must not see, among those the codec's relay profile tracks (the chat
   * usage-only chunk the gateway asked for on the client's behalf: `ClientWire.hiddenFrames`),
   * tested on the frame's data. Default: none hidden.
   */
  hidden?: (data: string) => boolean;
}

const BOM = 0xfeff;

/**
 * The same-protocol fast path: upstream frames are copied to the client byte for byte, and only
 * the frames that can carry usage, a finish, an error or the end (the codec's
 * {@link RelayProfile}) are decoded to keep the account. Frames in the usual shape (`data: …`
 * or `event: …` then `data: …`, one line each, LF line ends, a blank line after) are cut out of
 * the text without a line parser; from the first frame in any other shape on, the rest of the
 * stream goes through the SSE parser and is re-serialised. An upstream error frame is copied
 * (it is already in the client's protocol) and ends the stream.
 */
export function createFrameRelay(codec: Codec, options: FrameRelayOptions = {}): ClientStream {
  return new FrameRelay(codec, options.hidden ?? null);
}

class FrameRelay implements ClientStream {
  // StringDecoder rather than TextDecoder: TextDecoder converts its `{ stream: true }` options
  // on every call, which costs several times the decode itself. StringDecoder keeps a leading
  // U+FEFF; `push` sees it and hands the stream to the SSE parser, which drops it.
  private readonly decoder = new StringDecoder("utf8");
  private readonly parts;
  private readonly profile;
  private pending = "";
  private sawText = false;
  private parser: SseParser | null = null;
  private closed = false;
  private done = false;
  private terminalSeen = false;
  private lastUsage: IrUsage | null = null;
  private error: IrStreamError | null = null;

  constructor(
    codec: Codec,
    private readonly hidden: ((data: string) => boolean) | null,
  ) {
    this.parts = codec.decodeStream();
    this.profile = codec.relay;
  }

  push(chunk: Uint8Array | string): string {
    const text = typeof chunk === "string" ? chunk : this.decoder.write(chunk);
    if (this.closed) return "";
    if (this.parser) return this.pushEvents(this.parser.push(text));
    if (text === "") return "";
    if (!this.sawText) {
      this.sawText = true;
      if (text.charCodeAt(0) === BOM) return this.handOver(text, true);
    }
    const buffer = this.pending === "" ? text : this.pending + text;
    const cr = buffer.indexOf("\r");
    let out = "";
    let run = 0;
    let pos = 0;
    while (!this.closed) {
      const end = buffer.indexOf("\n\n", pos);
      if (end === -1) break;
      let event: string | undefined;
      let dataStart: number;
      if (buffer.startsWith("data: ", pos)) dataStart = pos + 6;
      else if (buffer.startsWith("event: ", pos)) {
        const lineEnd = buffer.indexOf("\n", pos);
        if (lineEnd === end || !buffer.startsWith("data: ", lineEnd + 1)) break;
        event = buffer.slice(pos + 7, lineEnd);
        dataStart = lineEnd + 7;
      } else break;
      if (buffer.indexOf("\n", dataStart) !== end || (cr !== -1 && cr < end + 2)) break;
      const data = buffer.slice(dataStart, end);
      if (this.profile.tracks(event, data)) {
        const keep = this.track(event, data);
        if (!keep) {
          if (run < pos) out += buffer.slice(run, pos);
          run = end + 2;
        }
      }
      pos = end + 2;
    }
    if (run < pos) out += buffer.slice(run, pos);
    if (this.closed) {
      this.pending = "";
      return out;
    }
    const rest = pos === 0 ? buffer : buffer.slice(pos);
    if (rest.indexOf("\n\n") !== -1 || rest.indexOf("\r") !== -1 || !plausibleStart(rest)) {
      this.pending = "";
      return out + this.handOver(rest, false);
    }
    this.pending = rest;
    return out;
  }

  flush(): string {
    let out = this.push(this.decoder.end());
    if (!this.closed) {
      if (!this.parser) {
        const rest = this.pending;
        this.pending = "";
        if (rest !== "") out += this.handOver(rest, false);
      }
      if (this.parser) out += this.pushEvents(this.parser.flush());
    }
    if (this.closed && (this.terminalSeen || this.error)) return out;
    if (this.done) {
      this.closed = true;
      return out + formatSseEvents(this.profile.terminator);
    }
    return out + this.fail(streamCutError());
  }

  fail(error: IrStreamError): string {
    if (this.closed) return "";
    this.closed = true;
    this.error ??= error;
    return formatSseEvents(this.profile.errorFrames(error));
  }

  usage(): IrUsage | null {
    return streamUsage(this.lastUsage, this.done, this.parts);
  }

  finished(): boolean {
    return this.done;
  }

  upstreamError(): IrStreamError | null {
    return this.error;
  }

  /** Reads one tracked frame; false when the client must not see it. */
  private track(event: string | undefined, data: string): boolean {
    const sse: SseEvent = event === undefined ? { data } : { event, data };
    for (const part of this.parts.push(sse)) {
      if (part.type === "usage") this.lastUsage = part.usage;
      else if (part.type === "finish") this.done = true;
      else if (part.type === "error") {
        this.error = part.error;
        this.closed = true;
      }
    }
    if (this.profile.isTerminal(event, data)) {
      this.terminalSeen = true;
      this.closed = true;
    }
    return this.hidden === null || !this.hidden(data);
  }

  private handOver(text: string, streamStart: boolean): string {
    this.parser = createSseParser({ streamStart });
    return this.pushEvents(this.parser.push(text));
  }

  private pushEvents(events: SseEvent[]): string {
    let out = "";
    for (const event of events) {
      if (this.closed) break;
      if (this.profile.tracks(event.event, event.data) && !this.track(event.event, event.data))
        continue;
      out += formatSse(event);
    }
    return out;
  }
}

/** Whether an incomplete frame can still turn out to be in the usual shape. */
function plausibleStart(text: string): boolean {
  if (text.length >= 7) return text.startsWith("data: ") || text.startsWith("event: ");
  return "data: ".startsWith(text.slice(0, 6)) || "event: ".startsWith(text);
}
