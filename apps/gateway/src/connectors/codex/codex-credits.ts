import { bodyObject } from "../connector";

/**
 * Whether a Codex reading says the account has credits, which the backend spends automatically
 * once the plan window is used up (no user toggle): `x-codex-credits-has-credits` /
 * `-unlimited` on a response (`True`/`False`, any case, or 1/0), or `credits.has_credits` /
 * `unlimited` in a `wham/usage` payload or `codex.rate_limits` event. Null when the reading says
 * nothing. Pure and total.
 */
export function codexCreditsEvidence(reading: {
  headers?: Readonly<Record<string, string>>;
  payload?: unknown;
}): boolean | null {
  const flag = (value: unknown): boolean | null => {
    if (typeof value === "boolean") return value;
    if (typeof value !== "string") return null;
    const text = value.trim().toLowerCase();
    if (text === "true" || text === "1") return true;
    if (text === "false" || text === "0") return false;
    return null;
  };
  if (reading.headers) {
    let hasCredits: boolean | null = null;
    let unlimited: boolean | null = null;
    for (const [name, value] of Object.entries(reading.headers)) {
      const lower = name.toLowerCase();
      if (lower === "x-codex-credits-has-credits") hasCredits = flag(value);
      if (lower === "x-codex-credits-unlimited") unlimited = flag(value);
    }
    if (hasCredits !== null || unlimited !== null) return Boolean(hasCredits || unlimited);
  }
  const credits = bodyObject(bodyObject(reading.payload)?.credits);
  if (credits) {
    const hasCredits = flag(credits.has_credits);
    const unlimited = flag(credits.unlimited);
    if (hasCredits !== null || unlimited !== null) return Boolean(hasCredits || unlimited);
  }
  return null;
}
