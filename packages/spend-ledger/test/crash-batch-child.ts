// Many requests in flight against a SQLite spend store with a budget, as a gateway runs them:
// each worker reserves, prints "R <id>" once reserve() resolved (the point where the gateway
// calls the upstream), waits a moment, then settles WITHOUT waiting for it and prints "S <id>"
// when that settle resolves. Run by crash-batch.test.ts, which SIGKILLs it mid-batch.
import { createSpendLedger, isRefusal } from "../src/index";
import { createSqliteSpendStore } from "../src/sqlite";

const [path, budget, workers] = process.argv.slice(2);
if (!path || !budget || !workers) {
  throw new Error("usage: crash-batch-child.ts <database path> <budget USD> <workers>");
}

const store = createSqliteSpendStore({ path });
const ledger = createSpendLedger({ store, budgetsUsd: { cheap: Number(budget) } });
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
let next = 0;

async function worker(): Promise<never> {
  for (;;) {
    const reservation = await ledger.reserve({
      rung: "cheap",
      connectionId: "openai",
      model: "gpt-4.1-mini",
      maxCostUsd: 0.002,
      requestId: `batch-${next++}`,
    });
    if (isRefusal(reservation)) {
      await turn();
      continue;
    }
    process.stdout.write(`R ${reservation.id}\n`);
    await turn();
    void ledger
      .settle(reservation, 0.001234, { model: "gpt-4.1-mini", inputTokens: 1200, outputTokens: 80 })
      .then(() => process.stdout.write(`S ${reservation.id}\n`));
  }
}

await Promise.all(Array.from({ length: Number(workers) }, worker));
