const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

const BARE_SECONDS = /^(?:\d+(?:\.\d*)?|\.\d+)$/;
// Longer units first so `ms` is never read as `m` followed by a stray `s`.
const SEGMENT = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;

/**
 * Parses a Go `time.Duration` string (`1h2m3s`, `6m0s`, `2m59.56s`, `500ms`, `976.066617ms`,
 * `0.976066617s`) or a protobuf duration (`47s`) into milliseconds. The whole string must match,
 * so `1m30.5s` is 90 500 ms, never 1 minute (pitfall 4). A bare number is seconds (Cerebras sends
 * `33011.382867`). A leading `-` means already due and gives 0; a leading `+` is ignored.
 *
 * @returns milliseconds ≥ 0, or null when the text is not a duration
 */
export function parseGoDuration(value: string | null | undefined): number | null {
  if (typeof value !== "string") return null;
  let body = value.trim().toLowerCase();
  let negative = false;
  if (body.startsWith("-") || body.startsWith("+")) {
    negative = body.startsWith("-");
    body = body.slice(1);
  }
  if (body === "") return null;
  let totalMs: number;
  if (BARE_SECONDS.test(body)) {
    totalMs = Number(body) * 1000;
  } else {
    totalMs = 0;
    SEGMENT.lastIndex = 0;
    let position = 0;
    while (position < body.length) {
      SEGMENT.lastIndex = position;
      const match = SEGMENT.exec(body);
      if (!match) return null;
      totalMs += Number(match[1]) * (UNIT_MS[match[2]!] ?? Number.NaN);
      position = SEGMENT.lastIndex;
    }
  }
  if (!Number.isFinite(totalMs)) return null;
  return negative ? 0 : totalMs;
}
