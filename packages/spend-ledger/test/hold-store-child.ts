// Opens a SQLite spend store and keeps it open until killed; prints "ready" once it owns it.
// Run by sqlite-owner.test.ts.
import { createSqliteSpendStore } from "../src/sqlite";

const path = process.argv[2];
if (!path) throw new Error("usage: hold-store-child.ts <database path>");
createSqliteSpendStore({ path });
process.stdout.write("ready\n");
setInterval(() => {}, 60_000);
