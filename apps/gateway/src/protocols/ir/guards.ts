/** A JSON object from an untrusted value. */
export type Json = Record<string, unknown>;

/** True for a plain (non-array, non-null) object. */
export function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
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
