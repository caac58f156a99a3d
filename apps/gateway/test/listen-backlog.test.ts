import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startHarness } from "./harness";

// A burst of connections that arrives while the gateway's event loop is busy waits in the
// kernel's accept queue. Past Node's default backlog (511) the kernel drops the handshakes, and
// each client retries a second later; the gateway listens with a longer queue. Read on Linux,
// where the system's cap (net.core.somaxconn) must leave room for the burst, else skipped.

const BURST = 1_500;
const somaxconnFile = "/proc/sys/net/core/somaxconn";
const somaxconn = existsSync(somaxconnFile) ? Number(readFileSync(somaxconnFile, "utf8")) : 0;

/**
 * Run in a child process: opens `count` connections to 127.0.0.1:`port` at once, counts those
 * whose handshake completed, and once no more complete for 1.5 s (or all did) writes the count
 * to `file`. Nothing accepts them meanwhile, so the count is what the accept queue kept.
 */
const CLIENT = `
const net = require("node:net");
const fs = require("node:fs");
const [port, count, file] = process.argv.slice(1);
let connected = 0;
let lastAt = Date.now();
for (let i = 0; i < Number(count); i++) {
  const socket = net.connect(Number(port), "127.0.0.1", () => { connected++; lastAt = Date.now(); });
  socket.on("error", () => {});
}
const timer = setInterval(() => {
  if (connected < Number(count) && Date.now() - lastAt < 1500) return;
  clearInterval(timer);
  fs.writeFileSync(file + ".tmp", String(connected));
  fs.renameSync(file + ".tmp", file);
  process.exit(0);
}, 50);
`;

describe.skipIf(somaxconn < BURST)("the gateway's listen backlog", () => {
  it("keeps a burst of 1,500 handshakes that arrive while its event loop is busy", async () => {
    const harness = await startHarness({ config: { connections: [] } });
    const dir = mkdtempSync(join(tmpdir(), "planfirst-backlog-"));
    try {
      const file = join(dir, "connected");
      const child = spawn(
        process.execPath,
        ["-e", CLIENT, String(harness.server.port), String(BURST), file],
        { stdio: "ignore" },
      );
      // Hold this process's event loop, which is the gateway's, until the child has counted:
      // nothing is accepted meanwhile, so every completed handshake sits in the accept queue.
      const sleep = new Int32Array(new SharedArrayBuffer(4));
      const deadline = Date.now() + 30_000;
      while (!existsSync(file) && Date.now() < deadline) Atomics.wait(sleep, 0, 0, 20);
      expect(existsSync(file), "the client process did not report").toBe(true);
      expect(Number(readFileSync(file, "utf8"))).toBe(BURST);
      await new Promise((resolve) => child.once("exit", resolve));
    } finally {
      await harness.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
