import { parseGoDuration } from "./parse-go-duration";

const UNIT_MS: ReadonlyArray<[RegExp, number]> = [
  [/^(?:ms|msecs?|milliseconds?)$/, 1],
  [/^(?:s|secs?|seconds?)$/, 1000],
  [/^(?:m|mins?|minutes?)$/, 60_000],
  [/^(?:h|hrs?|hours?)$/, 3_600_000],
  [/^(?:d|days?)$/, 86_400_000],
];

const AMOUNT_UNIT = String.raw`(\d{1,12}(?:\.\d{1,12})?)\s?(milliseconds?|msecs?|ms|seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d)\b`;
const CUE = String.raw`(?:try again|retry|wait|reset|available again)\s+(?:in|after|for)?\s*`;
const AFTER_CUE = new RegExp(
  `${CUE}(${AMOUNT_UNIT}(?:\\s*(?:,|and)?\\s*${AMOUNT_UNIT})*|[0-9][0-9.hmsuµμn]{0,40})`,
  "i",
);
const BARE_IN = new RegExp(String.raw`\bin\s+${AMOUNT_UNIT}`, "i");
const PAIR = new RegExp(AMOUNT_UNIT, "gi");

function unitMs(unit: string): number | null {
  const lower = unit.toLowerCase();
  for (const [pattern, ms] of UNIT_MS) if (pattern.test(lower)) return ms;
  return null;
}

function sumPairs(phrase: string): number | null {
  let total = 0;
  let found = false;
  for (const match of phrase.matchAll(PAIR)) {
    const ms = unitMs(match[2]!);
    if (ms === null) return null;
    total += Number(match[1]) * ms;
    found = true;
  }
  return found && Number.isFinite(total) ? total : null;
}

/**
 * Reads a wait from provider prose: "Please try again in 1.146s", "try again in 84ms",
 * "Please retry in 47s", "Your quota will reset after 0s", "Please wait 2 minutes",
 * "try again in 58 hours", "in 1m30s". Compound phrases ("1 hour 30 minutes") are summed.
 * A cue word (try again, retry, wait, reset) is preferred; a bare "in N unit" is the fallback.
 *
 * @returns the wait in milliseconds ≥ 0, or null when the text carries no hint
 */
export function parseProseRetryHint(message: string | null | undefined): number | null {
  if (typeof message !== "string" || message === "") return null;
  const input = message.length > 4000 ? message.slice(0, 4000) : message;
  const cued = AFTER_CUE.exec(input);
  if (cued) {
    const phrase = cued[1]!;
    // A compact `1m30s` is a Go duration; spaced phrases are summed pair by pair.
    const fromGo = parseGoDuration(phrase.replace(/[.,]+$/, ""));
    if (fromGo !== null) return fromGo;
    const fromPairs = sumPairs(phrase);
    if (fromPairs !== null) return fromPairs;
  }
  const bare = BARE_IN.exec(input);
  if (bare) return sumPairs(bare[0]);
  return null;
}
