// Plain JavaScript: tsup loads package configs with Node.js, which cannot import TypeScript
// from another workspace package.

/**
 * The build of a published package: each entry as ESM and CJS with its own declaration file
 * (`.d.ts` / `.d.cts`), source maps, Node.js 20 syntax.
 *
 * @param {string[]} entry the files behind the package's `exports`, e.g. `["src/index.ts"]`
 * @returns {import("tsup").Options}
 */
export function packageBuild(entry) {
  return {
    entry,
    format: ["esm", "cjs"],
    dts: true,
    clean: true,
    sourcemap: true,
    target: "node20",
  };
}
