import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";

/** True when a `redis-server` binary is on the PATH. */
export const hasRedisServer =
  spawnSync("redis-server", ["--version"], { stdio: "ignore" }).status === 0;

/** A free loopback port, chosen by the OS. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address
          ? resolve(address.port)
          : reject(new Error("no port")),
      );
    });
  });
}

/**
 * A redis-server of the test's own on `port`, persisting every write to an append-only file in
 * `dir` (fsync always), so a SIGKILL and a restart on the same dir keep everything acknowledged.
 */
export class TestRedisServer {
  private process: ChildProcess | null = null;

  constructor(
    readonly port: number,
    private readonly dir: string,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts the server and resolves once it accepts connections. */
  start(): Promise<void> {
    const child = spawn(
      "redis-server",
      [
        "--port",
        String(this.port),
        "--bind",
        "127.0.0.1",
        "--dir",
        this.dir,
        "--save",
        "",
        "--appendonly",
        "yes",
        "--appendfsync",
        "always",
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    this.process = child;
    return new Promise((resolve, reject) => {
      let output = "";
      child.stdout?.setEncoding("utf8");
      child.stdout?.on("data", (chunk: string) => {
        output += chunk;
        if (output.includes("Ready to accept connections")) resolve();
      });
      child.once("error", reject);
      child.once("exit", (code) => reject(new Error(`redis-server exited (${code}): ${output}`)));
    });
  }

  /** SIGKILLs the server (no shutdown, no save) and resolves once it is gone. */
  kill(): Promise<void> {
    const child = this.process;
    this.process = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      child.once("exit", () => resolve());
      child.kill("SIGKILL");
    });
  }

  /** Freezes the server (SIGSTOP): connections stay open, nothing is answered. */
  pause(): void {
    this.process?.kill("SIGSTOP");
  }

  resume(): void {
    this.process?.kill("SIGCONT");
  }
}
