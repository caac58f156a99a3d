import type { SseEvent } from "../types";

/**
 * Serialises one event as SSE text: an `event:` line when named, one `data:` line per line of
 * `data`, and the blank line that ends the event.
 */
export function formatSse(event: SseEvent): string {
  const head = event.event === undefined ? "" : `event: ${event.event}\n`;
  if (!event.data.includes("\n")) return `${head}data: ${event.data}\n\n`;
  return `${head}${event.data
    .split("\n")
    .map((line) => `data: ${line}`)
    .join("\n")}\n\n`;
}

/** Serialises events in order; see {@link formatSse}. */
export function formatSseEvents(events: readonly SseEvent[]): string {
  let out = "";
  for (const event of events) out += formatSse(event);
  return out;
}

/**
 * An SSE comment line that carries nothing: every SSE reader skips it, so it keeps an idle
 * stream open through proxies and client read timeouts without adding an event.
 */
export const SSE_KEEP_ALIVE = ": keep-alive\n\n";
