import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { createSqliteSpendStore } from "../src/sqlite";
import { killChildren, spawnTestChild } from "./child-process";
import { fileReservations } from "./spend-file";
import { makeTempDir } from "./temp-dir";

const budgetMicro = 400_000;

/** Runs the child until it has printed `minimum` reservations, then SIGKILLs it mid-batch. */
function runAndKill(path: string, minimum: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawnTestChild("crash-batch-child.ts", [path, String(budgetMicro / 1e6), "32"]);
    let output = "";
    let errors = "";
    let reserved = 0;
    let killed = false;
    child.stdout?.setEncoding("utf8");
    child.stdout?.on("data", (chunk: string) => {
      output += chunk;
      reserved += chunk.split("R ").length - 1;
      if (!killed && reserved >= minimum) {
        killed = true;
        // An arbitrary point: batches are forming, committing and resolving all the time.
        setTimeout(() => child.kill("SIGKILL"), Math.floor(Math.random() * 20));
      }
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      errors += chunk.toString();
    });
    child.on("error", reject);
    child.on("exit", (_code, signal) => {
      if (signal !== "SIGKILL") {
        reject(new Error(`child exited without being killed: ${errors}`));
        return;
      }
      // Only complete lines count; a line cut by the kill is dropped.
      resolve(output.split("\n").slice(0, -1));
    });
  });
}

describe("SQLite spend store SIGKILLed mid-batch", () => {
  const temp = makeTempDir();
  afterAll(() => {
    killChildren();
    temp.remove();
  });

  it("keeps every reservation that resolved and every settle that resolved, within the budget", async () => {
    const path = join(temp.dir, "crash-batch.db");
    const lines = await runAndKill(path, 300);
    const reservedIds = lines.filter((line) => line.startsWith("R ")).map((line) => line.slice(2));
    const settledIds = lines.filter((line) => line.startsWith("S ")).map((line) => line.slice(2));
    expect(reservedIds.length).toBeGreaterThanOrEqual(300);

    const check = new Database(path, { readonly: true });
    expect(check.pragma("integrity_check", { simple: true })).toBe("ok");
    const durable = new Set(fileReservations(check).keys());
    const booked = new Set(
      (
        check.prepare("SELECT reservation_id AS id FROM spend_record").all() as Array<{
          id: string;
        }>
      ).map((row) => row.id),
    );
    const windowSpent = (
      check.prepare("SELECT COALESCE(SUM(spent_micro_usd), 0) AS n FROM spend_window").get() as {
        n: number;
      }
    ).n;
    check.close();

    // Every request that reached "the upstream" had a durable reservation.
    expect(reservedIds.filter((id) => !durable.has(id))).toEqual([]);
    // Every settle that resolved is booked, and every booking is a reservation that resolved
    // or was about to (its reserve batch committed before the kill).
    expect(settledIds.filter((id) => !booked.has(id))).toEqual([]);
    expect([...booked].filter((id) => !durable.has(id))).toEqual([]);
    expect(windowSpent).toBe(booked.size * 1234);
    expect(windowSpent).toBeLessThanOrEqual(budgetMicro);

    // Reopened, what the crash left unsettled still holds budget until it expires.
    const store = createSqliteSpendStore({ path });
    const windows = store.database
      .prepare("SELECT window_key AS key FROM spend_live UNION SELECT window_key FROM spend_record")
      .all() as Array<{ key: string }>;
    for (const { key } of windows) {
      const totals = store.totals("cheap", key, Date.now());
      expect(totals.spentMicroUsd + totals.reservedMicroUsd).toBeLessThanOrEqual(budgetMicro);
    }
    const unsettled = [...durable].filter((id) => !booked.has(id)).length;
    const reservedMicro = windows.reduce(
      (sum, { key }) => sum + store.totals("cheap", key, Date.now()).reservedMicroUsd,
      0,
    );
    expect(reservedMicro).toBe(unsettled * 2000);
    await store.close();
  }, 60_000);
});
