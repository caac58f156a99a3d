import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { CLI_ROOT } from "./run-cli";

/** A folder under the OS temp dir that lives as long as one test file. */
export interface TempDir {
  /** Its absolute path; set before the file's first test. */
  readonly path: string;
  /**
   * Makes a fresh folder inside it that holds only a copy of the committed
   * `planfirst.example.yaml`, for runs without `--config` and without `planfirst.yaml`.
   */
  exampleCwd(): Promise<string>;
}

/**
 * Registers hooks that create `planfirst-cli-<name>-…` under the OS temp dir before the file's
 * first test and remove it, with everything in it, after its last.
 */
export function useTempDir(name: string): TempDir {
  let path: string | undefined;
  beforeAll(async () => {
    path = await mkdtemp(join(tmpdir(), `planfirst-cli-${name}-`));
  });
  afterAll(async () => {
    if (path) await rm(path, { recursive: true, force: true });
  });
  const dir: TempDir = {
    get path() {
      if (!path) throw new Error("the temp dir is created in beforeAll");
      return path;
    },
    async exampleCwd() {
      const cwd = await mkdtemp(join(dir.path, "example-"));
      await copyFile(
        join(CLI_ROOT, "..", "..", "planfirst.example.yaml"),
        join(cwd, "planfirst.example.yaml"),
      );
      return cwd;
    },
  };
  return dir;
}
