import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const script = join(
  dirname(fileURLToPath(import.meta.url)),
  "../../../tooling/scripts/check-unused-exports.mjs",
);
const trees: string[] = [];

/** A package manifest whose exports map names `src/` files under the source condition. */
function manifest(name: string, subpaths: readonly string[], bin?: string): string {
  const exports: Record<string, unknown> = {};
  for (const subpath of subpaths) {
    const stem = subpath === "." ? "index" : subpath.slice(2);
    exports[subpath] = {
      "@planfirst/source": `./src/${stem}.ts`,
      import: { types: `./dist/${stem}.d.ts`, default: `./dist/${stem}.js` },
    };
  }
  exports["./package.json"] = "./package.json";
  return JSON.stringify({
    name,
    type: "module",
    exports,
    ...(bin ? { bin: { [name]: bin } } : {}),
  });
}

/** A workspace in a temp dir: `files` maps repository paths to contents. */
function workspace(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "planfirst-unused-exports-"));
  trees.push(root);
  const base = {
    "packages/ledger/package.json": manifest("@planfirst/ledger", [".", "./sqlite"]),
    "apps/cli/package.json": manifest("planfirst", ["."], "./dist/bin.js"),
  };
  for (const [path, text] of Object.entries({ ...base, ...files })) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

function check(root?: string) {
  const run = spawnSync(process.execPath, root ? [script, root] : [script], { encoding: "utf8" });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/** A tree in which every export has a use of one kind or another. */
const USED = {
  // Published: what the entries export is the API, used or not.
  "packages/ledger/src/index.ts":
    'export { reserve } from "./reserve";\nexport const LEDGER_VERSION = 1;\n',
  "packages/ledger/src/sqlite.ts": "export function openSqliteLedger() {}\n",
  "packages/ledger/src/reserve.ts": "export function reserve() {}\n",
  "apps/cli/src/index.ts": "export {};\n",
  "apps/cli/src/bin.ts": "export function main() {}\n",
  // By name, through `.js` → `.ts` and a directory's index.ts.
  "apps/cli/src/commands/run.ts": [
    'import { formatCost, type CostLine } from "../format.js";',
    'import { readConfig } from "../config";',
    'import * as paths from "../paths";',
    'import { openSqliteLedger } from "@planfirst/ledger/sqlite";',
    "const line: CostLine = formatCost(readConfig(paths.CONFIG_FILE));",
    "type Home = paths.Home;",
    'const plugin = await import("../plugin");',
    "",
  ].join("\n"),
  "apps/cli/src/format.ts":
    "export interface CostLine { text: string }\nexport function formatCost(n: number): CostLine { return { text: String(n) }; }\n",
  "apps/cli/src/config/index.ts": 'export { readConfig } from "./read-config";\n',
  "apps/cli/src/config/read-config.ts":
    "export function readConfig(path: string) { return path.length; }\n",
  // By namespace member, value and type.
  "apps/cli/src/paths.ts":
    'export const CONFIG_FILE = "planfirst.yaml";\nexport type Home = string;\n',
  // By a dynamic import: every export.
  "apps/cli/src/plugin.ts": "export const a = 1;\nexport const b = 2;\n",
  // Only a test imports it: still a use.
  "apps/cli/src/test-support.ts": "export function fakeClock() { return 0; }\n",
  "apps/cli/test/run.test.ts": 'import { fakeClock } from "../src/test-support";\n',
  // Not checked: tests, built output, the package template.
  "apps/cli/src/run.test.ts": "export const helperNobodyImports = 1;\n",
  "apps/cli/dist/bin.js": "export const built = 1;\n",
  "packages/_template/package.json": manifest("@planfirst/template", ["."]),
  "packages/_template/src/index.ts": "export {};\n",
  "packages/_template/src/example.ts": "export const example = 1;\n",
};

afterEach(() => {
  for (const root of trees.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe("check-unused-exports", () => {
  it("passes a tree whose exports are each imported, re-exported, read from a namespace or published", () => {
    const result = check(workspace(USED));
    expect(result.output).toContain("check-unused-exports: 12 source files, 14 exports");
    expect(result.status).toBe(0);
  });

  it("fails on an export no other file uses, naming the file, the line and the fix", () => {
    const result = check(
      workspace({
        ...USED,
        "apps/cli/src/format.ts": [
          "export interface CostLine { text: string }",
          "export function formatCost(n: number): CostLine { return { text: money(n) }; }",
          "export function money(n: number): string { return String(n); }",
          "export function formatDuration(ms: number): string { return String(ms); }",
          "",
        ].join("\n"),
      }),
    );
    expect(result.status).toBe(1);
    expect(result.output).toContain(
      "apps/cli/src/format.ts:3: export money is not imported by any other file (used only inside its file: drop `export`)",
    );
    expect(result.output).toContain(
      "apps/cli/src/format.ts:4: export formatDuration is not imported by any other file (used nowhere: delete it)",
    );
    expect(result.output).toContain("check-unused-exports: 2 export(s) no other file uses");
  });

  it("fails on a name an index passes on to nobody, and on a namespace member nobody reads", () => {
    const result = check(
      workspace({
        ...USED,
        "apps/cli/src/config/index.ts":
          'export { readConfig, writeConfig } from "./read-config";\n',
        "apps/cli/src/config/read-config.ts":
          "export function readConfig(path: string) { return path.length; }\nexport function writeConfig() {}\n",
        "apps/cli/src/paths.ts":
          'export const CONFIG_FILE = "planfirst.yaml";\nexport type Home = string;\nexport const CACHE_DIR = ".cache";\n',
      }),
    );
    expect(result.status).toBe(1);
    expect(result.output).toContain(
      "apps/cli/src/config/index.ts:1: export writeConfig is not imported by any other file (drop it from its export list)",
    );
    expect(result.output).toContain("apps/cli/src/paths.ts:3: export CACHE_DIR");
    // Re-exported by the index, writeConfig counts as used in its own file.
    expect(result.output).not.toContain("read-config.ts");
    expect(result.output).toContain("check-unused-exports: 2 export(s) no other file uses");
  });

  it("passes on the repository itself", () => {
    const result = check();
    expect(result.output).toContain("each used by another file or published by its package");
    expect(result.status).toBe(0);
  });
});
