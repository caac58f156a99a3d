import { GatewayError } from "../errors";

/** The request header in which a client says how long it will wait for a plan, in seconds. */
export const MAX_WAIT_HEADER = "x-planfirst-max-wait";

/** Seconds: digits with an optional decimal part (`30`, `2.5`, `0`); no sign, no exponent. */
const SECONDS = /^\d+(?:\.\d+)?$/;

/** Longest value echoed back in the error message. */
const ECHO_CHARS = 40;

/**
 * Reads `x-planfirst-max-wait` (ladder.md §17, WAIT1): the seconds a client will wait for a plan
 * that resets soon, as milliseconds (rounded), or undefined when the header is absent. `0`
 * asks not to wait at all, whatever the id's default. A value too large for the gateway is not
 * an error: the dispatcher caps it (`maxWaitCapMs`). Anything else (empty, negative, `1e3`,
 * `5s`, two values) is a 400 `invalid_max_wait` that names the header and the rule.
 */
export function parseMaxWaitHeader(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  const seconds = SECONDS.test(text) ? Number(text) : Number.NaN;
  if (!Number.isFinite(seconds)) {
    const shown = text.length > ECHO_CHARS ? `${text.slice(0, ECHO_CHARS)}…` : text;
    throw new GatewayError({
      code: "invalid_max_wait",
      message: `${MAX_WAIT_HEADER} must be a non-negative number of seconds (digits, an optional decimal part, such as 30 or 2.5), not "${shown}"`,
      details: { param: MAX_WAIT_HEADER },
    });
  }
  return Math.round(seconds * 1000);
}
