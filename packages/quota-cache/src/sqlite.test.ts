import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { QuotaCacheError } from "./errors";
import { createSqliteQuotaStore } from "./sqlite";
import { describeQuotaStoreContract } from "./store-contract";

const directory = mkdtempSync(join(tmpdir(), "planfirst-quota-sqlite-"));
const paths = new WeakMap<object, string>();
let counter = 0;

afterAll(() => rmSync(directory, { recursive: true, force: true }));

describeQuotaStoreContract("sqlite", {
  async create() {
    const path = join(directory, `state-${counter++}`, "state.db");
    const store = createSqliteQuotaStore({ path });
    paths.set(store, path);
    return store;
  },
  async reopen(store) {
    const path = paths.get(store)!;
    const reopened = createSqliteQuotaStore({ path });
    paths.set(reopened, path);
    return reopened;
  },
});

describe("sqlite quota store", () => {
  it("opens the file in WAL mode", async () => {
    const { default: Database } = await import("better-sqlite3");
    const path = join(directory, "wal", "state.db");
    const store = createSqliteQuotaStore({ path });
    store.put("windows", { connectionId: "c", key: "5h", rev: 1, value: { ok: true } });
    await store.close();
    const db = new Database(path, { readonly: true });
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    db.close();
  });

  it("refuses a path it cannot open with a QuotaCacheError", () => {
    const file = join(directory, "not-a-folder");
    writeFileSync(file, "");
    expect(() => createSqliteQuotaStore({ path: join(file, "state.db") })).toThrow(QuotaCacheError);
  });
});
