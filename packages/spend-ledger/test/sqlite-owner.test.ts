import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createSqliteSpendStore } from "../src/sqlite";
import { exited, killChildren, spawnTestChild } from "./child-process";
import { makeTempDir } from "./temp-dir";

describe("one process owns a SQLite spend store", () => {
  const temp = makeTempDir();
  afterAll(() => {
    killChildren();
    temp.remove();
  });

  it("refuses a second process with store_locked naming the file, and frees the file when the owner dies", async () => {
    const path = join(temp.dir, "owned.db");
    const child = spawnTestChild("hold-store-child.ts", [path]);
    let errors = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      errors += chunk.toString();
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout?.on("data", (chunk: Buffer) => {
        if (chunk.toString().includes("ready")) resolve();
      });
      child.on("exit", () => reject(new Error(`child exited early: ${errors}`)));
    });

    let refusal: unknown;
    try {
      createSqliteSpendStore({ path });
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toMatchObject({ name: "SpendLedgerError", code: "store_locked" });
    expect((refusal as Error).message).toContain(path);

    // SIGKILL leaves no chance to clean up: the OS releases the lock with the process.
    child.kill("SIGKILL");
    await exited(child);
    const store = createSqliteSpendStore({ path });
    await store.close();
  }, 30_000);

  it("lets stores in one process share the file, and the last close frees it", async () => {
    const path = join(temp.dir, "shared.db");
    const first = createSqliteSpendStore({ path });
    const second = createSqliteSpendStore({ path: join(temp.dir, ".", "shared.db") });
    expect(second.database).toBe(first.database);
    await first.close();
    expect(second.database.open).toBe(true);
    await second.close();
    expect(second.database.open).toBe(false);
    const again = createSqliteSpendStore({ path });
    expect(again.database.open).toBe(true);
    await again.close();
  });
});
