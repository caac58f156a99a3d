import { createSseParser, type SseParser } from "./sse";
import { createStreamBridge, type StreamBridge, type StreamBridgeOptions } from "./stream-bridge";
import type { SseEvent, WireProtocol } from "./types";

/**
 * An upstream SSE body turned into client SSE text, chunk by chunk: the SSE parser and the
 * stream bridge in one, with the bridge's state (usage, end, errors, `fail`) at hand.
 */
export interface StreamRelay {
  readonly bridge: StreamBridge;
  /** Client text for the next upstream chunk ("" when it completes nothing). */
  push(chunk: Uint8Array | string): string;
  /** Ends the upstream body: client text for an event still pending, if any. */
  flush(): string;
}

const BOM = 0xfeff;

/**
 * Creates the relay from `upstreamProtocol` to `clientProtocol`. Its output is exactly what
 * `createSseParser` events fed to `createStreamBridge` give. Frames in the usual shape
 * (`data: …` or `event: …` then `data: …`, one line each, LF line ends, a blank line after) are
 * cut out of the text without a line parser; a frame the bridge forwards unchanged is copied as
 * it came, so on a same-protocol stream only the frames carrying usage, a finish, the end or an
 * error reach the bridge. From the first frame in any other shape on, the rest of the stream
 * goes through the SSE parser.
 */
export function createStreamRelay(
  upstreamProtocol: WireProtocol,
  clientProtocol: WireProtocol,
  options: StreamBridgeOptions,
): StreamRelay {
  return new FrameRelay(createStreamBridge(upstreamProtocol, clientProtocol, options));
}

class FrameRelay implements StreamRelay {
  private readonly decoder = new TextDecoder("utf-8");
  /** Text after the last complete frame. */
  private pending = "";
  private sawText = false;
  /** Set once a frame in another shape is met: the parser reads the rest of the stream. */
  private parser: SseParser | null = null;

  constructor(readonly bridge: StreamBridge) {}

  push(chunk: Uint8Array | string): string {
    const text = typeof chunk === "string" ? chunk : this.decoder.decode(chunk, { stream: true });
    if (this.parser) return this.pushEvents(this.parser.push(text));
    if (text === "") return "";
    if (!this.sawText) {
      this.sawText = true;
      // A byte-order mark: the parser's business.
      if (text.charCodeAt(0) === BOM) return this.handOver(text, true);
    }
    const buffer = this.pending === "" ? text : this.pending + text;
    const bridge = this.bridge;
    const cr = buffer.indexOf("\r");
    let out = "";
    // Frames from `run` to `pos` are copied as they came.
    let run = 0;
    let pos = 0;
    while (true) {
      const end = buffer.indexOf("\n\n", pos);
      if (end === -1) break;
      let event: string | undefined;
      let dataStart: number;
      if (buffer.startsWith("data: ", pos)) {
        dataStart = pos + 6;
      } else if (buffer.startsWith("event: ", pos)) {
        const lineEnd = buffer.indexOf("\n", pos);
        if (lineEnd === end || !buffer.startsWith("data: ", lineEnd + 1)) break;
        event = buffer.slice(pos + 7, lineEnd);
        dataStart = lineEnd + 7;
      } else {
        break;
      }
      if (buffer.indexOf("\n", dataStart) !== end || (cr !== -1 && cr < end + 2)) break;
      const data = buffer.slice(dataStart, end);
      if (!bridge.forwardsUnchanged(event, data)) {
        if (run < pos) out += buffer.slice(run, pos);
        out += bridge.push(event === undefined ? { data } : { event, data });
        run = end + 2;
      }
      pos = end + 2;
    }
    if (run < pos) out += buffer.slice(run, pos);
    const rest = pos === 0 ? buffer : buffer.slice(pos);
    // `rest` starts with an incomplete frame, or with one in another shape (which it holds
    // whole when it is complete, and at least a line end as well when it is incomplete).
    if (rest.indexOf("\n\n") !== -1 || rest.indexOf("\r") !== -1 || !plausibleStart(rest)) {
      this.pending = "";
      return out + this.handOver(rest, false);
    }
    this.pending = rest;
    return out;
  }

  flush(): string {
    let out = this.push(this.decoder.decode());
    if (!this.parser) {
      const rest = this.pending;
      this.pending = "";
      if (rest === "") return out;
      out += this.handOver(rest, false);
    }
    return out + this.pushEvents(this.parser!.flush());
  }

  /** Gives the rest of the stream, from a frame boundary, to the SSE parser. */
  private handOver(text: string, streamStart: boolean): string {
    this.parser = createSseParser({ streamStart });
    return this.pushEvents(this.parser.push(text));
  }

  private pushEvents(events: SseEvent[]): string {
    let out = "";
    for (const event of events) out += this.bridge.push(event);
    return out;
  }
}

/** Whether an incomplete frame can still turn out to be in the usual shape. */
function plausibleStart(text: string): boolean {
  if (text.length >= 7) return text.startsWith("data: ") || text.startsWith("event: ");
  return "data: ".startsWith(text.slice(0, 6)) || "event: ".startsWith(text);
}
