import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A fresh directory under the OS temp dir and a function that deletes it. */
export function makeTempDir(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "planfirst-spend-ledger-"));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
