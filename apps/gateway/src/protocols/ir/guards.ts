/** A JSON object from an untrusted value. */
export type Json = Record<string, unknown>;

/** True for a plain (non-array, non-null) object. */
export function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A shallow copy of a JSON object, made to be given keys `source` lacks. A spread copy
 * (`{ ...source }`) is as fast until such a key is added; then Node 20 derives a new hidden class
 * for every copy (AGENTS.md, "Hot paths"). Every key is copied as a data property: a
 * `__proto__` key (`JSON.parse` makes it an own key of a client's object) stays a key, as in a
 * spread copy, where `Object.assign` would set the copy's prototype to its value instead.
 */
export function copyJson(source: Json): Json {
  const copy: Json = {};
  for (const key of Object.keys(source)) {
    if (key === "__proto__") {
      Object.defineProperty(copy, key, {
        value: source[key],
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else copy[key] = source[key];
  }
  return copy;
}

/** A JSON object parsed from SSE data, or null when the data is not one (a total guard). */
export function parseJsonObject(data: string): Json | null {
  try {
    const value: unknown = JSON.parse(data);
    return isRecord(value) ? value : null;
  } catch {
    return null;
  }
}

/** The string, or undefined when the value is not a string. */
export function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}
