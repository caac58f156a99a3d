// Settles in a loop against a SQLite spend store and prints each reservation id on its own
// line once settle() has returned. Run by crash.test.ts, which kills it with SIGKILL.
import { createSpendLedger } from "../src/index";
import { createSqliteSpendStore } from "../src/sqlite";

const path = process.argv[2];
if (!path) throw new Error("usage: crash-child.ts <database path>");

const store = createSqliteSpendStore({ path });
const ledger = createSpendLedger({ store, budgetsUsd: {} });

for (let index = 0; ; index++) {
  const reservation = await ledger.reserve({
    rung: "cheap",
    connectionId: "openai",
    model: "gpt-4.1-mini",
    maxCostUsd: 0.002,
    requestId: `crash-${index}`,
  });
  if ("refused" in reservation) throw new Error("a rung without a budget was refused");
  await ledger.settle(reservation, 0.001234, {
    model: "gpt-4.1-mini",
    inputTokens: 1200,
    outputTokens: 80,
  });
  process.stdout.write(`${reservation.id}\n`);
}
