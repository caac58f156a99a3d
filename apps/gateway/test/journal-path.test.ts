import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseConfig } from "../src/config/load-config";
import { spendJournalPath } from "../src/config/storage-paths";
import { ConfigError } from "../src/errors";
import { type RunningServer, startServer } from "../src/server";
import { deleteRedisKeys, redisStorage } from "./harness";

const storage = redisStorage();
afterAll(() => deleteRedisKeys(storage.keyPrefix));

/** A port nothing listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("the spend journal file of a gateway on Redis", () => {
  it("defaults to one file per port, and an explicit path wins", () => {
    const { storage } = parseConfig({ storage: { driver: "redis" } });
    expect(spendJournalPath(storage, 4300)).toBe(".planfirst/spend-journal-4300.db");
    const explicit = parseConfig({ storage: { driver: "redis", journalPath: "var/journal.db" } });
    expect(spendJournalPath(explicit.storage, 4300)).toBe("var/journal.db");
  });

  it("with port 0 (a new port at every start) it must be given, and the error names the path", () => {
    expect(() => parseConfig({ server: { port: 0 }, storage: { driver: "redis" } })).toThrow(
      expect.objectContaining({
        problems: [expect.objectContaining({ path: "storage.journalPath" })],
      }),
    );
    // A port given at start (`planfirst serve --port 0`) is refused the same way.
    const { storage } = parseConfig({ storage: { driver: "redis" } });
    expect(() => spendJournalPath(storage, 0)).toThrow(ConfigError);
  });

  it("two gateways started from one folder on two ports share Redis with no extra setting", async () => {
    const folder = mkdtempSync(join(tmpdir(), "planfirst-replicas-"));
    const previous = process.cwd();
    const servers: RunningServer[] = [];
    try {
      process.chdir(folder);
      const ports = [await freePort(), await freePort()];
      // One port from the file, one given at start (`planfirst serve --port`): both name the file.
      servers.push(
        await startServer({
          config: parseConfig({ server: { port: ports[0] }, storage }),
          env: {},
          print: () => undefined,
          pollUsage: false,
        }),
        await startServer({
          config: parseConfig({ storage }),
          port: ports[1],
          env: {},
          print: () => undefined,
          pollUsage: false,
        }),
      );
      expect(servers.map((server) => server.port)).toEqual(ports);
      for (const port of ports) {
        expect(existsSync(join(folder, ".planfirst", `spend-journal-${port}.db`))).toBe(true);
      }
    } finally {
      await Promise.all(servers.map((server) => server.close()));
      process.chdir(previous);
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
