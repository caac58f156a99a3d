import type { Options } from "tsup";

/**
 * The build of a published package: each entry as ESM and CJS with its own declaration file
 * (`.d.ts` / `.d.cts`), source maps, Node.js 20 syntax.
 */
export declare function packageBuild(entry: string[]): Options;
