import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakePlanProviders } from "@planfirst/fake-upstream";
import { parseConfig } from "../src/config/load-config";
import { startServer } from "../src/server";
import type { BenchGateway } from "./gateway-variants";

/**
 * The plan's reset, as z.ai writes it in its 1308 refusal (Beijing wall time): nine minutes
 * away, within the ten minutes a request may wait by default, and after any run of the benchmark.
 */
function beijingInNineMinutes(): string {
  const resetMs = Date.now() + 9 * 60_000;
  return new Date(resetMs + 8 * 3_600_000).toISOString().slice(0, 19).replace("T", " ");
}

/**
 * The gateway of the held-requests benchmark: a z.ai coding plan that is out for nine minutes
 * (the plan fake answers every completion with its 429 code 1308), for which strict requests that
 * may wait are held, and a keyless model (`bench-model`, authType none) on the instant upstream: the
 * other traffic whose speed is measured. Lines are unbounded (`maxWaiting`), state is SQLite in
 * a temporary directory, logging at info (nothing per request).
 */
export async function startHeldBenchGateway(upstreamUrl: string): Promise<BenchGateway> {
  const plans = await startFakePlanProviders();
  plans.zai.exhaustedUntilBeijing = beijingInNineMinutes();
  const dir = mkdtempSync(join(tmpdir(), "planfirst-bench-held-"));
  const config = parseConfig({
    server: { port: 0, logLevel: "info" },
    storage: { driver: "sqlite", path: join(dir, "state.db") },
    connections: [
      {
        id: "zai-plan",
        provider: "zai",
        authType: "apikey",
        protocol: "openai",
        baseUrl: plans.zai.baseUrl,
        usageUrl: plans.zai.usageUrl,
        credential: "env:BENCH_ZAI_KEY",
        models: ["glm-4.6"],
      },
      {
        id: "local",
        provider: "ollama",
        authType: "none",
        protocol: "openai",
        baseUrl: upstreamUrl,
        models: ["bench-model"],
      },
    ],
    subscriptionLadder: { maxWaiting: 1_000_000 },
  });
  const server = await startServer({
    config,
    env: { BENCH_ZAI_KEY: plans.zai.apiKey },
    print: () => undefined,
    pollUsage: false,
  });
  return {
    url: server.url,
    async close() {
      await server.close();
      await plans.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
