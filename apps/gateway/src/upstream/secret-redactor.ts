/** What replaces a credential found in an upstream body or header relayed to a client. */
export const REDACTED = "[redacted]";

/** Credentials shorter than this are not searched for: they would match ordinary text. */
const MIN_SECRET_LENGTH = 8;

/**
 * Removes one connection's credentials from what its upstream sends back before it reaches a
 * client. An upstream that echoes the credential it received (`…you sent authorization=Bearer
 * sk-ant-oat01-…`) must not hand it to whoever holds a gateway key.
 */
export interface SecretRedactor {
  /** True when there is nothing to search for: callers may skip the work. */
  readonly empty: boolean;
  /** `text` with every occurrence of every secret (and its JSON-escaped form) replaced. */
  redact(text: string): string;
  /** A copy of `headers` with every value redacted. */
  redactHeaders(headers: Readonly<Record<string, string>>): Record<string, string>;
  /** A redactor for one stream, whose chunks may split a secret anywhere. */
  stream(): StreamRedactor;
}

/**
 * Redacts a stream chunk by chunk. A secret split across chunks is still caught: `push` holds
 * back the shortest tail that could be the start of a secret (never past a line end, since no
 * credential contains one, so a stream of whole SSE frames is held back by nothing).
 */
interface StreamRedactor {
  /** Redacted text that is safe to send now. */
  push(chunk: string): string;
  /** The held-back tail, redacted: call once when the stream ends. */
  flush(): string;
}

/**
 * Builds the redactor for a set of credential values (the connection's own credential and any
 * token derived from it, such as an exchanged access token). Empty, missing and very short
 * values are ignored.
 */
export function createSecretRedactor(
  secrets: ReadonlyArray<string | null | undefined>,
): SecretRedactor {
  const needles = needlesOf(secrets);
  const longest = needles.reduce((max, needle) => Math.max(max, needle.length), 0);

  function redact(text: string): string {
    if (needles.length === 0 || text.length < MIN_SECRET_LENGTH) return text;
    let out = text;
    for (const needle of needles) {
      if (out.includes(needle)) out = out.split(needle).join(REDACTED);
    }
    return out;
  }

  return {
    empty: needles.length === 0,
    redact,
    redactHeaders(headers) {
      const out: Record<string, string> = {};
      for (const [name, value] of Object.entries(headers)) out[name] = redact(value);
      return out;
    },
    stream() {
      let held = "";
      return {
        push(chunk) {
          if (needles.length === 0) return chunk;
          const text = redact(held + chunk);
          const keep = heldTailLength(text, longest);
          held = text.slice(text.length - keep);
          return text.slice(0, text.length - keep);
        },
        flush() {
          const rest = redact(held);
          held = "";
          return rest;
        },
      };
    },
  };
}

/** Each secret and its JSON-escaped form, longest first so a longer match is never split. */
function needlesOf(secrets: ReadonlyArray<string | null | undefined>): string[] {
  const found = new Set<string>();
  for (const secret of secrets) {
    if (typeof secret !== "string" || secret.length < MIN_SECRET_LENGTH) continue;
    found.add(secret);
    const escaped = JSON.stringify(secret).slice(1, -1).replaceAll("/", "\\/");
    if (escaped !== secret) found.add(escaped);
    const jsonEscaped = JSON.stringify(secret).slice(1, -1);
    if (jsonEscaped !== secret) found.add(jsonEscaped);
  }
  return [...found].sort((a, b) => b.length - a.length);
}

/**
 * How much of the end of `text` could be the beginning of a secret: at most `longest - 1`
 * characters, and nothing at or before the last line end.
 */
function heldTailLength(text: string, longest: number): number {
  const window = Math.min(text.length, longest - 1);
  if (window <= 0) return 0;
  const lineEnd = text.lastIndexOf("\n");
  const afterLineEnd = text.length - (lineEnd + 1);
  return Math.min(window, afterLineEnd);
}
