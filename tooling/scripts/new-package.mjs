#!/usr/bin/env node
// Starts a new workspace package from packages/_template: `pnpm new-package NAME`.
// Copies the template (without node_modules, dist or caches), renames it to @planfirst/NAME,
// drops `private`, and points every path at the new folder. `--root DIR` runs it against
// another checkout (used by its test). It never overwrites an existing folder.
import { cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const NAME_PATTERN = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
const SKIPPED = new Set(["node_modules", "dist", ".turbo"]);

function fail(message) {
  console.error(`new-package: ${message}`);
  process.exit(2);
}

const args = process.argv.slice(2);
const rootIndex = args.indexOf("--root");
const root =
  rootIndex >= 0
    ? resolve(args.splice(rootIndex, 2)[1] ?? fail("--root needs a directory"))
    : resolve(fileURLToPath(new URL("../..", import.meta.url)));
const [name, ...rest] = args;
if (!name || rest.length > 0) fail("usage: pnpm new-package NAME [--root DIR]");
if (!NAME_PATTERN.test(name)) {
  fail(`"${name}" is not a package name: use lowercase words joined by hyphens, e.g. quota-pacer`);
}

const template = join(root, "packages", "_template");
const target = join(root, "packages", name);
if (!existsSync(template)) fail(`no template at ${template}`);
if (existsSync(target)) fail(`${target} already exists; nothing was changed`);

cpSync(template, target, {
  recursive: true,
  filter: (source) => !SKIPPED.has(source.split(/[\\/]/).pop() ?? ""),
});

const manifestPath = join(target, "package.json");
const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
manifest.name = `@planfirst/${name}`;
manifest.description = `TODO(${name}): say in one sentence what this package holds.`;
delete manifest.private;
manifest.repository.directory = `packages/${name}`;
manifest.scripts.test = `vitest run --project ${name} --root ../..`;
writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);

const readmePath = join(target, "README.md");
const readme = readFileSync(readmePath, "utf8").replaceAll(
  "@planfirst/template",
  `@planfirst/${name}`,
);
writeFileSync(readmePath, readme);

console.log(`new-package: created packages/${name} (@planfirst/${name})`);
console.log("next: pnpm install, then write its README and replace the example code");
