import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { median, printTable, quantile } from "@planfirst/bench";
import { buildConnector, Pool } from "undici";
import { startChild, stopChild } from "./child-process";

// Should the gateway multiplex its upstream streams over HTTP/2? Long streams over TLS, as
// provider APIs serve them: C concurrent `stream: true` calls (default 1000, opened evenly over
// 2 s), each N chunks over D seconds, from one HTTPS upstream in its own process that speaks
// HTTP/2 or HTTP/1.1 as the client's ALPN asks (slow-upstream.ts, 100 streams a connection).
// The client is undici 7 (the gateway's HTTP library) in this process: a `Pool` on HTTP/1.1, one
// connection per stream (as the gateway's client has), against a `Pool` with `allowH2`, first
// with one stream a connection, then with up to 100 multiplexed on each. Per client: streams
// completed, connections opened, time to the first body byte p50/p99, this process's RSS while
// every stream is open minus its RSS before, over C, and its CPU (user + system) over C. The
// clients take turns, ROUNDS times, so a drifting machine hits them alike. Needs `openssl` on the PATH for a throwaway self-signed certificate.
//   cd apps/gateway && npx tsx --conditions=@planfirst/source bench/upstream-http2.ts
// H2_STREAMS_C, H2_STREAMS_N, H2_STREAMS_D_S and H2_ROUNDS (default 2) change the run.

const STREAMS = Number(process.env.H2_STREAMS_C ?? 1000);
const CHUNKS = Number(process.env.H2_STREAMS_N ?? 100);
const DURATION_S = Number(process.env.H2_STREAMS_D_S ?? 10);
const ROUNDS = Number(process.env.H2_ROUNDS ?? 2);
const OPEN_OVER_MS = 2_000;

/** How the client speaks to the upstream. */
interface ClientSetup {
  name: string;
  allowH2: boolean;
  /** Requests a connection carries at once: undici counts a connection busy at this many. */
  perConnection: number;
}

const SETUPS: readonly ClientSetup[] = [
  { name: "HTTP/1.1, a connection per stream", allowH2: false, perConnection: 1 },
  { name: "HTTP/2, a connection per stream", allowH2: true, perConnection: 1 },
  { name: "HTTP/2, up to 100 streams a connection", allowH2: true, perConnection: 100 },
];

interface RoundResult {
  completed: number;
  connections: number;
  ttfbMs: number[];
  rssPerStreamKiB: number;
  cpuPerStreamMs: number;
}

/** A certificate and key for 127.0.0.1 in a new temporary directory. */
function selfSignedCertificate(): string {
  const dir = mkdtempSync(join(tmpdir(), "planfirst-h2-bench-"));
  try {
    execFileSync(
      "openssl",
      [
        ...["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"],
        ...["-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem")],
        ...["-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
      ],
      { stdio: "ignore" },
    );
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`this benchmark needs openssl on the PATH for its certificate: ${error}`);
  }
  return dir;
}

const streamBody = JSON.stringify({
  model: "bench-model",
  stream: true,
  max_tokens: 64,
  messages: [{ role: "user", content: "Say ok." }],
});

/** One round of {@link STREAMS} streams with `setup`, measured in this process. */
async function round(origin: string, setup: ClientSetup): Promise<RoundResult> {
  let connections = 0;
  const connector = buildConnector({ rejectUnauthorized: false, allowH2: setup.allowH2 });
  const pool = new Pool(origin, {
    connect(options, callback) {
      connections += 1;
      connector(options, callback);
    },
    pipelining: setup.perConnection,
    allowH2: setup.allowH2,
  });
  (globalThis as { gc?: () => void }).gc?.();
  const rssBefore = process.memoryUsage.rss();
  const cpuBefore = process.cpuUsage();
  let rssPeak = rssBefore;
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
  }, 200);
  const ttfbMs: number[] = [];
  let completed = 0;
  await Promise.all(
    Array.from({ length: STREAMS }, async (_, index) => {
      await new Promise((resolve) => setTimeout(resolve, (OPEN_OVER_MS * index) / STREAMS));
      const started = performance.now();
      try {
        const response = await pool.request({
          path: "/v1/chat/completions",
          method: "POST",
          headers: { "content-type": "application/json" },
          body: streamBody,
        });
        let text = "";
        for await (const chunk of response.body) {
          if (text === "") ttfbMs.push(performance.now() - started);
          text = (text + chunk).slice(-32);
        }
        if (text.endsWith("data: [DONE]\n\n")) completed += 1;
      } catch {
        // Counted as not completed.
      }
    }),
  );
  clearInterval(sampler);
  const cpu = process.cpuUsage(cpuBefore);
  await pool.close();
  return {
    completed,
    connections,
    ttfbMs: ttfbMs.sort((a, b) => a - b),
    rssPerStreamKiB: (rssPeak - rssBefore) / STREAMS / 1024,
    cpuPerStreamMs: (cpu.user + cpu.system) / STREAMS / 1000,
  };
}

const tlsDir = selfSignedCertificate();
try {
  const upstream = await startChild(["slow-upstream", String(CHUNKS), String(DURATION_S), tlsDir]);
  const origin = new URL(upstream.url).origin;
  const results = SETUPS.map(() => [] as RoundResult[]);
  for (let index = 0; index < ROUNDS; index++) {
    for (const [at, setup] of SETUPS.entries()) results[at]!.push(await round(origin, setup));
  }
  await stopChild(upstream);
  console.log(
    `\n${STREAMS} concurrent streams over TLS, opened over ${OPEN_OVER_MS / 1000} s, ${CHUNKS} ` +
      `chunks over ${DURATION_S} s each, undici 7 in this process, the upstream in its own; ` +
      `medians of ${ROUNDS} rounds.`,
  );
  printTable(
    [
      "client",
      "completed",
      "connections",
      "TTFB p50 ms",
      "TTFB p99 ms",
      "RSS/stream KiB",
      "CPU ms/stream",
    ],
    SETUPS.map((setup, at) => {
      const rounds = results[at]!;
      return [
        setup.name,
        `${Math.min(...rounds.map((r) => r.completed))}/${STREAMS}`,
        String(median(rounds.map((r) => r.connections))),
        median(rounds.map((r) => quantile(r.ttfbMs, 0.5))).toFixed(1),
        median(rounds.map((r) => quantile(r.ttfbMs, 0.99))).toFixed(1),
        median(rounds.map((r) => r.rssPerStreamKiB)).toFixed(1),
        median(rounds.map((r) => r.cpuPerStreamMs)).toFixed(2),
      ];
    }),
  );
} finally {
  rmSync(tlsDir, { recursive: true, force: true });
}
