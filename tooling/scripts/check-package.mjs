#!/usr/bin/env node
// Checks the package in the current directory as it will be published: packs it with pnpm (so
// `publishConfig` overrides apply, as they do on release), then runs publint and
// arethetypeswrong over the tarball. Exits non-zero on any error either tool reports.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { publint } from "publint";
import { formatMessage } from "publint/utils";

const packDir = mkdtempSync(join(tmpdir(), "planfirst-pack-"));
try {
  execFileSync("pnpm", ["pack", "--pack-destination", packDir], { stdio: "ignore" });
  const tarballName = readdirSync(packDir).find((file) => file.endsWith(".tgz"));
  if (!tarballName) throw new Error(`pnpm pack wrote no tarball into ${packDir}`);
  const tarballPath = join(packDir, tarballName);
  const tarball = readFileSync(tarballPath);

  const { messages, pkg } = await publint({
    pack: {
      tarball: tarball.buffer.slice(tarball.byteOffset, tarball.byteOffset + tarball.length),
    },
    strict: true,
  });
  for (const message of messages) {
    console.log(`publint ${message.type}: ${formatMessage(message, pkg)}`);
  }
  const publintFailed = messages.some((m) => m.type === "error" || m.type === "warning");

  let attwFailed = false;
  try {
    execFileSync("attw", [tarballPath, "--profile", "node16", "--format", "table-flipped"], {
      stdio: "inherit",
    });
  } catch {
    attwFailed = true;
  }
  if (publintFailed || attwFailed) {
    console.error(`${pkg.name}: package checks failed`);
    process.exit(1);
  }
  console.log(`${pkg.name}: publint and attw pass`);
} finally {
  rmSync(packDir, { recursive: true, force: true });
}
