import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { createSqliteSpendStore } from "../src/sqlite";
import { makeTempDir } from "./temp-dir";

const here = dirname(fileURLToPath(import.meta.url));
// The tsx loader runs inside the child itself (the tsx CLI would fork a grandchild that a
// SIGKILL of its parent leaves running).
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

const children: ChildProcess[] = [];

/** Runs the child until it has printed `minimum` settled ids, then SIGKILLs it mid-loop. */
function runAndKill(path: string, minimum: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--conditions=@planfirst/source", "--import", tsxLoader, join(here, "crash-child.ts"), path],
      { cwd: join(here, ".."), stdio: ["ignore", "pipe", "pipe"] },
    );
    children.push(child);
    let output = "";
    let errors = "";
    let killed = false;
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      output += chunk;
      if (!killed && output.split("\n").length > minimum) {
        killed = true;
        // Kill at an arbitrary point of the loop, not right after a print.
        setTimeout(() => child.kill("SIGKILL"), Math.floor(Math.random() * 20));
      }
    });
    child.stderr.on("data", (chunk: Buffer) => {
      errors += chunk.toString();
    });
    child.on("error", reject);
    child.on("exit", (_code, signal) => {
      if (signal !== "SIGKILL") {
        reject(new Error(`child exited without being killed: ${errors}`));
        return;
      }
      // Only complete lines were printed after settle() returned; a cut last line is dropped.
      resolve(output.split("\n").slice(0, -1));
    });
  });
}

describe("SQLite spend store under SIGKILL", () => {
  const temp = makeTempDir();
  afterAll(() => {
    // A failed run must not leave a child settling in the background.
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    temp.remove();
  });

  it("keeps every settle that returned before the kill, and the file is not corrupt", async () => {
    const path = join(temp.dir, "crash.db");
    const printed = await runAndKill(path, 200);
    expect(printed.length).toBeGreaterThanOrEqual(200);

    const check = new Database(path);
    expect(check.pragma("integrity_check", { simple: true })).toBe("ok");
    check.close();

    const store = createSqliteSpendStore({ path });
    const records = await store.records({});
    const booked = new Set(records.map((record) => record.reservationId));
    const missing = printed.filter((id) => !booked.has(id));
    expect(missing).toEqual([]);
    // The window totals agree with the records (a run may straddle midnight: sum every window).
    const windowKeys = new Set(records.map((record) => record.windowKey));
    const spentMicro = [...windowKeys].reduce(
      (sum, key) => sum + (store.totals("cheap", key, Date.now())?.spentMicroUsd ?? 0),
      0,
    );
    expect(spentMicro).toBe(booked.size * 1234);
    await store.close();
  }, 60_000);
});
