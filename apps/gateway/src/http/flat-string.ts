/**
 * `text` (Latin-1 only: ids, header blocks) as one flat string. V8 keeps a string built by
 * concatenation as a tree of its pieces for as long as the string lives: `randomUUID()`'s is 20
 * pieces (about 490 bytes for 36 characters), the header block Node's `writeHead` keeps for the
 * response's whole life about 50. Held for a long stream, that is kilobytes per stream; the copy
 * costs its length.
 */
export function flatString(text: string): string {
  return Buffer.from(text, "latin1").toString("latin1");
}
