import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import Database from "better-sqlite3";
import { build } from "tsup";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import manifest from "../package.json";
import config from "../tsup.config";
import { fileReservations } from "./spend-file";
import { makeTempDir } from "./temp-dir";

const run = promisify(execFile);
const packageDir = fileURLToPath(new URL("..", import.meta.url));

// The package's own build (its tsup config, declarations left out for speed), written inside
// the package's node_modules so the built files resolve better-sqlite3 as an installed copy would.
const cacheDir = join(packageDir, "node_modules", ".cache");
let outDir = "";

/** A consumer of the built store: reserve, settle, close, in the given module format. */
const consumer = (load: string) => `${load}
const store = createSqliteSpendStore({ path: process.argv[2] });
const request = { reservationId: "r1", rung: "cheap", windowKey: "day:2026-11-30",
  amountMicroUsd: 5000, budgetMicroUsd: 10000, expiresAtMs: Date.now() + 60000, nowMs: Date.now() };
store.reserve(request).then(async (held) => {
  if (!held.admitted) throw new Error("refused");
  await store.settle({ reservationId: "r1", rung: "cheap", windowKey: "day:2026-11-30", nowMs: Date.now(),
    record: { reservationId: "r1", time: new Date().toISOString(), windowKey: "day:2026-11-30",
      rung: "cheap", connectionId: "openai", model: "m", inputTokens: 1, outputTokens: 1,
      cachedInputTokens: 0, cacheWriteTokens: 0, costMicroUsd: 1234, costUsd: 0.001234,
      reservedMicroUsd: 5000, clientKeyId: null, requestId: "q1" } });
  await store.close();
  console.log("ok");
});
`;

describe("the built package", () => {
  const temp = makeTempDir();
  beforeAll(async () => {
    const options = Array.isArray(config) ? config[0] : config;
    if (typeof options !== "object") throw new Error("tsup.config exports one options object");
    const entry = options.entry;
    if (!Array.isArray(entry)) throw new Error("tsup.config lists its entries as an array");
    mkdirSync(cacheDir, { recursive: true });
    outDir = mkdtempSync(join(cacheDir, "spend-ledger-build-"));
    await build({
      ...options,
      entry: entry.map((file) => join(packageDir, file)),
      // What tsup leaves external when run in the package directory, as `pnpm build` is.
      external: [...Object.keys(manifest.dependencies), ...Object.keys(manifest.peerDependencies)],
      dts: false,
      sourcemap: false,
      outDir,
      silent: true,
      config: false,
    });
  }, 60_000);
  afterAll(() => {
    temp.remove();
    if (outDir) rmSync(outDir, { recursive: true, force: true });
  });

  it("emits the SQLite commit thread beside the store in both formats", () => {
    for (const file of ["sqlite.js", "sqlite.cjs", "sqlite-worker.js", "sqlite-worker.cjs"]) {
      expect(existsSync(join(outDir, file)), file).toBe(true);
    }
  });

  it.each([
    ["ESM", "consumer.mjs", `import { createSqliteSpendStore } from "./sqlite.js";`],
    ["CJS", "consumer.cjs", `const { createSqliteSpendStore } = require("./sqlite.cjs");`],
  ])(
    "commits through its worker thread when loaded as %s with plain node",
    async (_format, file, load) => {
      const script = join(outDir, file);
      writeFileSync(script, consumer(load));
      const path = join(temp.dir, `${file}.db`);
      const { stdout } = await run(process.execPath, [script, path], { cwd: outDir });
      expect(stdout.trim()).toBe("ok");
      const check = new Database(path, { readonly: true });
      try {
        expect([...fileReservations(check).values()]).toEqual(["settled"]);
        expect(check.prepare("SELECT spent_micro_usd AS spent FROM spend_window").get()).toEqual({
          spent: 1234,
        });
      } finally {
        check.close();
      }
    },
  );
});
