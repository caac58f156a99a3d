import { writeFileSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

/**
 * Launches a system Chromium or Chrome headless, never a downloaded one (find it with
 * `chromiumForTests`). One per test file: launching costs about a second.
 */
export function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({
    executablePath,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}

/** What a PNG says about itself: its size from the IHDR chunk and how varied its bytes are. */
export interface PngFacts {
  width: number;
  height: number;
  /** Bytes in the file. */
  bytes: number;
  /** Distinct byte values in the compressed image data (a flat image compresses to few). */
  distinctBytes: number;
}

/** Reads the facts of a PNG buffer; throws when it is not a PNG. */
export function pngFacts(png: Buffer): PngFacts {
  const signature = "89504e470d0a1a0a";
  if (
    png.subarray(0, 8).toString("hex") !== signature ||
    png.toString("latin1", 12, 16) !== "IHDR"
  ) {
    throw new Error("not a PNG");
  }
  const seen = new Set<number>();
  let offset = 8;
  while (offset + 8 <= png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString("latin1", offset + 4, offset + 8);
    if (type === "IDAT") {
      for (const byte of png.subarray(offset + 8, offset + 8 + length)) seen.add(byte);
    }
    offset += 12 + length;
  }
  return {
    width: png.readUInt32BE(16),
    height: png.readUInt32BE(20),
    bytes: png.length,
    distinctBytes: seen.size,
  };
}

/**
 * Writes `png` to `path` when `UPDATE_SCREENSHOT=1` (how the README's screenshot is refreshed);
 * otherwise does nothing, so a test run never rewrites a committed file.
 */
export function maybeUpdateScreenshot(path: string, png: Buffer): boolean {
  if (process.env.UPDATE_SCREENSHOT !== "1") return false;
  writeFileSync(path, png);
  return true;
}
