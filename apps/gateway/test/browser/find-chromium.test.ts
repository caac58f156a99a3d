import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { chromiumForTests, findChromium, isCi } from "./find-chromium";

const dirs: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "planfirst-find-chromium-"));
  dirs.push(dir);
  return dir;
}

/** An executable script at `dir/name` (mode 0755), or a plain file with `mode`. */
function program(dir: string, name: string, mode = 0o755): string {
  const path = join(dir, name);
  writeFileSync(path, "#!/bin/sh\nexit 0\n");
  chmodSync(path, mode);
  return path;
}

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("findChromium", () => {
  it("takes CHROMIUM_PATH when it is an executable file, without looking further", () => {
    const explicit = program(tempDir(), "my-chrome");
    const onPath = tempDir();
    program(onPath, "chromium");
    expect(findChromium({ CHROMIUM_PATH: explicit, PATH: onPath }, [])).toEqual({
      executablePath: explicit,
      tried: [explicit],
    });
  });

  it("never replaces a CHROMIUM_PATH that is missing with another browser", () => {
    const onPath = tempDir();
    program(onPath, "chromium");
    const missing = join(tempDir(), "no-such-browser");
    expect(findChromium({ CHROMIUM_PATH: missing, PATH: onPath }, [])).toEqual({
      executablePath: null,
      tried: [missing],
    });
  });

  it("looks names up on PATH in order, each name in every directory before the next name", () => {
    const first = tempDir();
    const second = tempDir();
    program(first, "google-chrome");
    const chromium = program(second, "chromium");
    const search = findChromium({ PATH: [first, "", second].join(delimiter) }, []);
    expect(search.executablePath).toBe(chromium);
    expect(search.tried).toEqual([join(first, "chromium"), chromium]);
  });

  it("skips a file that is not executable and a directory of the same name", () => {
    const dir = tempDir();
    program(dir, "chromium", 0o644);
    mkdirSync(join(dir, "chromium-browser"));
    const chrome = program(dir, "google-chrome-stable");
    expect(findChromium({ PATH: dir }, []).executablePath).toBe(chrome);
  });

  it("tries the macOS apps after PATH", () => {
    const apps = tempDir();
    const app = program(apps, "Google Chrome");
    const search = findChromium({ PATH: tempDir() }, [join(apps, "Chromium"), app]);
    expect(search.executablePath).toBe(app);
    expect(search.tried.slice(-2)).toEqual([join(apps, "Chromium"), app]);
  });

  it("finds nothing on a machine without a browser, and lists every path it tried", () => {
    const empty = tempDir();
    const app = join(empty, "Chromium.app");
    const search = findChromium({ PATH: empty }, [app]);
    expect(search).toEqual({
      executablePath: null,
      tried: [
        join(empty, "chromium"),
        join(empty, "chromium-browser"),
        join(empty, "google-chrome"),
        join(empty, "google-chrome-stable"),
        app,
      ],
    });
  });
});

describe("chromiumForTests", () => {
  const none = { executablePath: null, tried: ["/nowhere/chromium", "/nowhere/google-chrome"] };

  it("outside CI, skips with one line that says how to run the tests", () => {
    for (const env of [{}, { CI: "" }, { CI: "false" }, { CI: "0" }]) {
      const lines: string[] = [];
      expect(chromiumForTests("x.test.ts", none, env, (line) => lines.push(line))).toBeNull();
      expect(lines).toEqual([
        "x.test.ts: skipped, no Chromium or Chrome found; install chromium or set CHROMIUM_PATH to run it",
      ]);
    }
  });

  it("in CI, a missing browser fails the file, naming every path tried", () => {
    for (const env of [{ CI: "true" }, { CI: "1" }]) {
      expect(isCi(env)).toBe(true);
      expect(() => chromiumForTests("x.test.ts", none, env, () => {})).toThrow(
        "CI requires a Chromium or Chrome for x.test.ts and none was found; tried:\n  /nowhere/chromium\n  /nowhere/google-chrome",
      );
    }
  });

  it("returns the browser found, in CI or not, and says nothing", () => {
    const lines: string[] = [];
    const found = { executablePath: "/usr/bin/chromium", tried: ["/usr/bin/chromium"] };
    expect(chromiumForTests("x.test.ts", found, { CI: "true" }, (l) => lines.push(l))).toBe(
      "/usr/bin/chromium",
    );
    expect(chromiumForTests("x.test.ts", found, {}, (l) => lines.push(l))).toBe(
      "/usr/bin/chromium",
    );
    expect(lines).toEqual([]);
  });
});
