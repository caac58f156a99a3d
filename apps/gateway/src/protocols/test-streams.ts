import { readFileSync } from "node:fs";
import type { IrStreamPart } from "./ir";
import { codecFor, type ProtocolName } from "./registry";
import { createSseParser } from "./sse/sse-parser";
import type { SseEvent } from "./types";

/** The text of a recorded stream in `<protocol>/__fixtures__/`. Test support only. */
export function fixtureText(protocol: ProtocolName, name: string): string {
  return readFileSync(new URL(`./${protocol}/__fixtures__/${name}`, import.meta.url), "utf8");
}

/** The SSE events of `text` cut into `chunks`. Test support only. */
export function parseEvents(chunks: readonly (string | Uint8Array)[]): SseEvent[] {
  const parser = createSseParser();
  const events: SseEvent[] = [];
  for (const chunk of chunks) events.push(...parser.push(chunk));
  events.push(...parser.flush());
  return events;
}

/** Every hub part of a stream of `protocol` given as chunks, the end included. Test support only. */
export function decodeChunks(
  protocol: ProtocolName,
  chunks: readonly (string | Uint8Array)[],
): IrStreamPart[] {
  const decoder = codecFor(protocol).decodeStream();
  const parts: IrStreamPart[] = [];
  for (const event of parseEvents(chunks)) parts.push(...decoder.push(event));
  parts.push(...decoder.end());
  return parts;
}

/** Bytes of `text` cut at the given offsets (sorted, deduplicated). Test support only. */
export function splitBytes(text: string, cuts: readonly number[]): Uint8Array[] {
  const bytes = new TextEncoder().encode(text);
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let start = 0;
  for (const point of points) {
    out.push(bytes.subarray(start, point));
    start = point;
  }
  out.push(bytes.subarray(start));
  return out;
}
