import { StringDecoder } from "node:string_decoder";
import type { SseEvent } from "../types";

/** An incremental server-sent-events parser; see {@link createSseParser}. */
export interface SseParser {
  /** Feeds the next chunk (bytes or text) and returns the events it completed, in order. */
  push(chunk: Uint8Array | string): SseEvent[];
  /**
   * Ends the stream and returns an event still pending without its blank line (lenient: some
   * servers omit the final blank line).
   */
  flush(): SseEvent[];
}

/** Options of {@link createSseParser}. */
interface SseParserOptions {
  /**
   * False when the parser takes over a stream after its beginning, at an event boundary: a
   * leading U+FEFF is then data, not a byte-order mark. Default true.
   */
  streamStart?: boolean;
}

/**
 * Creates an SSE parser that accepts chunk boundaries anywhere, including inside a CRLF pair or a
 * UTF-8 sequence. Lines end in LF, CR or CRLF; `data:` lines of one event are joined with "\n";
 * comment lines (`:`) and `id:` / `retry:` fields are ignored; an event with no data line is
 * dropped, as the SSE standard says.
 */
export function createSseParser(options: SseParserOptions = {}): SseParser {
  // StringDecoder keeps a leading U+FEFF, so `consume` drops exactly one, as the SSE standard
  // says (TextDecoder dropped one itself, and `consume` then dropped a second).
  const decoder = new StringDecoder("utf8");
  let buffer = "";
  let pendingCr = false;
  let eventName: string | undefined;
  let dataLines: string[] = [];
  let sawBom = options.streamStart === false;

  function dispatch(out: SseEvent[]): void {
    if (dataLines.length > 0) {
      const event: SseEvent = { data: dataLines.join("\n") };
      if (eventName !== undefined) event.event = eventName;
      out.push(event);
    }
    eventName = undefined;
    dataLines = [];
  }

  function processLine(line: string, out: SseEvent[]): void {
    if (line === "") {
      dispatch(out);
      return;
    }
    if (line.charCodeAt(0) === 58 /* ":" */) return;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32 /* " " */) value = value.slice(1);
    if (field === "data") dataLines.push(value);
    else if (field === "event") eventName = value;
  }

  function consume(text: string, out: SseEvent[]): void {
    let input = text;
    if (!sawBom && input.length > 0) {
      sawBom = true;
      if (input.charCodeAt(0) === 0xfeff) input = input.slice(1);
    }
    if (pendingCr) {
      pendingCr = false;
      // A CRLF split across chunks: the LF belongs to the CR already handled.
      if (input.charCodeAt(0) === 10) input = input.slice(1);
    }
    // The carried-over remainder holds no line end, so scanning resumes where it stopped.
    let i = buffer.length;
    buffer += input;
    let start = 0;
    for (; i < buffer.length; i++) {
      const code = buffer.charCodeAt(i);
      if (code !== 10 && code !== 13) continue;
      processLine(buffer.slice(start, i), out);
      if (code === 13) {
        if (i + 1 < buffer.length) {
          if (buffer.charCodeAt(i + 1) === 10) i++;
        } else {
          pendingCr = true;
        }
      }
      start = i + 1;
    }
    buffer = buffer.slice(start);
  }

  return {
    push(chunk) {
      const out: SseEvent[] = [];
      consume(typeof chunk === "string" ? chunk : decoder.write(chunk), out);
      return out;
    },
    flush() {
      const out: SseEvent[] = [];
      consume(decoder.end(), out);
      if (buffer !== "") {
        processLine(buffer, out);
        buffer = "";
      }
      dispatch(out);
      return out;
    },
  };
}
