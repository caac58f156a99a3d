import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";

/**
 * Streams the lines of a UTF-8 file one at a time with their 1-based numbers, so a log of any
 * size is read in constant memory. A trailing `\r` is dropped (CRLF files).
 */
export async function* readLines(file: string): AsyncGenerator<{ line: number; text: string }> {
  const lines = createInterface({
    input: createReadStream(file, { encoding: "utf8" }),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  let line = 0;
  for await (const text of lines) {
    line += 1;
    yield { line, text };
  }
}
