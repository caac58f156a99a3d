import { type RequestRecord, requestRecordSchema } from "./request-record";

/**
 * A record read back from a store, checked against its schema: the text is JSON the gateway
 * wrote, but a store can be shared, old or damaged, so it is parsed like any outside input.
 * Null when it is not a valid record.
 */
export function parseStoredRecord(text: string): RequestRecord | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  return storedRecordOf(value);
}

/** {@link parseStoredRecord} of a value already parsed from JSON (one element of a batch). */
export function storedRecordOf(value: unknown): RequestRecord | null {
  const parsed = requestRecordSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}
