import { readFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { GATEWAY_VARIANTS, type GatewayVariant, startBenchGateway } from "./gateway-variants";
import { startHeldBenchGateway } from "./held-gateway";
import { startInstantUpstream } from "./instant-upstream";
import { FORWARDER_LEDGERS, type ForwarderLedger, startJsonForwarder } from "./json-forwarder";
import { startRawProxy } from "./raw-proxy";
import { startSlowUpstream } from "./slow-upstream";

// One benchmark server in its own process, so the load generator and the other servers never
// share its event loop or its CPU time. Usage: child.ts upstream | slow-upstream CHUNKS SECONDS
// [TLS_DIR, holding cert.pem and key.pem: HTTPS] (slow-upstream.ts) | raw-proxy URL |
// json-forwarder URL [sqlite|redis: the ledger it books on] (json-forwarder.ts) |
// gateway URL VARIANT (see gateway-variants.ts) | held-gateway URL (see held-gateway.ts).
// Talks to the parent over IPC: sends { url } once listening; answers { type: "cpu" } with the
// CPU time it has used, { type: "memory" } with its memory figures (after a full GC) and
// { type: "rss" } with its resident set size as it stands; closes and exits on
// { type: "close" } (so --cpu-prof can write its file).

/** Messages the parent sends. */
export type ChildCommand =
  | { type: "cpu" }
  | { type: "memory" }
  | { type: "rss" }
  | { type: "close" };

/** Messages a child sends. */
export type ChildReport =
  | { type: "listening"; url: string }
  /**
   * User + system CPU time since the process started (every thread), and the time the main
   * thread's event loop was busy, both in microseconds.
   */
  | { type: "cpu"; cpuMicros: number; loopBusyMicros: number }
  /**
   * RSS before a full GC; the heap used and the memory outside it (buffers, `external`) after
   * it, null without `--expose-gc`.
   */
  | {
      type: "memory";
      rssBytes: number;
      heapUsedAfterGcBytes: number | null;
      externalAfterGcBytes: number | null;
    }
  /** Resident set size now, bytes (no GC first). */
  | { type: "rss"; rssBytes: number };

const [role, target] = process.argv.slice(2);
const send = (report: ChildReport) => process.send?.(report);

let close: () => Promise<void> | void;
let url: string;
if (role === "upstream") {
  const upstream = await startInstantUpstream();
  ({ url } = upstream);
  close = upstream.close;
} else if (role === "slow-upstream") {
  const tlsDir = process.argv[5];
  const upstream = await startSlowUpstream({
    chunks: Number(process.argv[3]),
    durationMs: Number(process.argv[4]) * 1000,
    ...(tlsDir
      ? {
          tls: {
            cert: readFileSync(join(tlsDir, "cert.pem"), "utf8"),
            key: readFileSync(join(tlsDir, "key.pem"), "utf8"),
          },
        }
      : {}),
  });
  ({ url } = upstream);
  close = upstream.close;
} else if (role === "raw-proxy") {
  const proxy = await startRawProxy(new URL(target!));
  ({ url } = proxy);
  close = proxy.close;
} else if (role === "json-forwarder") {
  const ledger = process.argv[4];
  if (ledger !== undefined && !FORWARDER_LEDGERS.includes(ledger as ForwarderLedger)) {
    throw new Error(`unknown forwarder ledger "${ledger}": ${FORWARDER_LEDGERS.join(", ")}`);
  }
  const forwarder = await startJsonForwarder(new URL(target!), {
    ledger: (ledger as ForwarderLedger | undefined) ?? null,
  });
  ({ url } = forwarder);
  close = forwarder.close;
} else if (role === "gateway") {
  const variant = process.argv[4] as GatewayVariant;
  const gateway = await startBenchGateway(variant, target!);
  ({ url } = gateway);
  close = gateway.close;
} else if (role === "held-gateway") {
  const gateway = await startHeldBenchGateway(target!);
  ({ url } = gateway);
  close = gateway.close;
} else {
  throw new Error(
    `unknown role "${role}": use upstream, slow-upstream CHUNKS SECONDS [TLS_DIR], raw-proxy URL, ` +
      `json-forwarder URL [${FORWARDER_LEDGERS.join("|")}], ` +
      `gateway URL ${GATEWAY_VARIANTS.join("|")} or held-gateway URL`,
  );
}

process.on("message", async (command: ChildCommand) => {
  if (command.type === "cpu") {
    const { user, system } = process.cpuUsage();
    const loopBusyMicros = performance.eventLoopUtilization().active * 1000;
    send({ type: "cpu", cpuMicros: user + system, loopBusyMicros });
  } else if (command.type === "memory") {
    // RSS as the load left it; then the live heap after a full collection (the leak indicator).
    const rssBytes = process.memoryUsage().rss;
    const gc = (globalThis as { gc?: () => void }).gc;
    let heapUsedAfterGcBytes: number | null = null;
    let externalAfterGcBytes: number | null = null;
    if (gc) {
      gc();
      const after = process.memoryUsage();
      heapUsedAfterGcBytes = after.heapUsed;
      externalAfterGcBytes = after.external;
    }
    send({ type: "memory", rssBytes, heapUsedAfterGcBytes, externalAfterGcBytes });
  } else if (command.type === "rss") {
    send({ type: "rss", rssBytes: process.memoryUsage.rss() });
  } else if (command.type === "close") {
    await close();
    process.exit(0);
  }
});
// The parent went away without saying so: do not linger.
process.on("disconnect", () => process.exit(0));
send({ type: "listening", url });
