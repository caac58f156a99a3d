import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const repoRoot = resolve(import.meta.dirname, "../../..");
const script = join(repoRoot, "tooling/scripts/new-package.mjs");
const roots: string[] = [];

function checkoutWithTemplate(): string {
  const root = mkdtempSync(join(tmpdir(), "planfirst-new-package-"));
  roots.push(root);
  mkdirSync(join(root, "packages"));
  cpSync(join(repoRoot, "packages/_template"), join(root, "packages/_template"), {
    recursive: true,
    filter: (source) => !source.includes("node_modules"),
  });
  return root;
}

afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe("pnpm new-package", () => {
  it("copies the template into a publishable package of the given name", () => {
    const root = checkoutWithTemplate();
    execFileSync(process.execPath, [script, "quota-pacer", "--root", root]);
    const dir = join(root, "packages/quota-pacer");
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    expect(manifest.name).toBe("@planfirst/quota-pacer");
    expect(manifest.private).toBeUndefined();
    expect(manifest.repository.directory).toBe("packages/quota-pacer");
    expect(manifest.scripts.test).toBe("vitest run --project quota-pacer --root ../..");
    expect(existsSync(join(dir, "src/index.ts"))).toBe(true);
    expect(existsSync(join(dir, "node_modules"))).toBe(false);
    expect(readFileSync(join(dir, "README.md"), "utf8")).toContain("@planfirst/quota-pacer");
  });

  it("refuses a bad name or an existing folder and changes nothing", () => {
    const root = checkoutWithTemplate();
    const bad = spawnSync(process.execPath, [script, "Quota_Pacer", "--root", root], {
      encoding: "utf8",
    });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('"Quota_Pacer" is not a package name');
    expect(existsSync(join(root, "packages/Quota_Pacer"))).toBe(false);

    execFileSync(process.execPath, [script, "quota-pacer", "--root", root]);
    const taken = spawnSync(process.execPath, [script, "quota-pacer", "--root", root], {
      encoding: "utf8",
    });
    expect(taken.status).toBe(2);
    expect(taken.stderr).toContain("already exists; nothing was changed");
  });
});
