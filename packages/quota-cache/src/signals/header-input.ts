/**
 * Response headers as callers hold them: a fetch `Headers` object or a plain record such as
 * Node's `IncomingHttpHeaders`. Names are matched case-insensitively; array values are joined
 * with `", "` as `Headers` does.
 */
export type HeaderInput = Headers | Record<string, string | string[] | undefined>;

/** Lower-cased header name → trimmed value; only non-empty values are kept. */
export type HeaderMap = ReadonlyMap<string, string>;

/** LiteLLM forwards every upstream header with this prefix (quota-signals.md §1). */
const PROXIED_PREFIX = "llm_provider-";

function asHeaderText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (Array.isArray(value)) {
    const parts = value.filter((part): part is string => typeof part === "string");
    return parts.length > 0 ? parts.join(", ") : undefined;
  }
  return undefined;
}

function isFetchHeaders(input: unknown): input is Headers {
  return (
    typeof input === "object" &&
    input !== null &&
    typeof (input as Headers).forEach === "function" &&
    typeof (input as Headers).get === "function"
  );
}

/**
 * Normalises any header input into a map keyed by lower-case name. Empty values are dropped
 * (pitfall 6). A header only seen behind LiteLLM's `llm_provider-` prefix is also filed under its
 * upstream name. Never throws; anything that is not a header container yields an empty map.
 */
export function toHeaderMap(input: HeaderInput | null | undefined): HeaderMap {
  const map = new Map<string, string>();
  const put = (name: string, raw: unknown) => {
    const text = asHeaderText(raw)?.trim();
    if (!text) return;
    const key = name.toLowerCase();
    const previous = map.get(key);
    map.set(key, previous === undefined ? text : `${previous}, ${text}`);
  };
  try {
    if (isFetchHeaders(input)) {
      input.forEach((value, name) => {
        put(name, value);
      });
    } else if (typeof input === "object" && input !== null) {
      for (const [name, value] of Object.entries(input)) put(name, value);
    }
  } catch {
    return new Map();
  }
  for (const [key, value] of [...map]) {
    if (key.startsWith(PROXIED_PREFIX)) {
      const upstream = key.slice(PROXIED_PREFIX.length);
      if (!map.has(upstream)) map.set(upstream, value);
    }
  }
  return map;
}
