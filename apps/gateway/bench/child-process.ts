import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { ChildCommand, ChildReport } from "./child";

/** A benchmark server running child.ts in a process of its own. */
export interface Child {
  readonly process: ChildProcess;
  /** Its base URL on 127.0.0.1. */
  readonly url: string;
  /** Sends a command and resolves with the child's next report. */
  ask(command: ChildCommand): Promise<ChildReport>;
}

/** Root of this checkout. */
const thisRoot = fileURLToPath(new URL("../../..", import.meta.url));

/** Where a child's code comes from, and what it runs with. */
export interface ChildSource {
  /**
   * Root of another checkout of this repository, its dependencies installed: its own child.ts
   * runs, from its own sources, to measure that version beside this one. Default this checkout.
   */
  root?: string;
  /** The child's environment. Default this process's. */
  env?: NodeJS.ProcessEnv;
}

/**
 * Starts child.ts with `args` (its role and the role's arguments) and Node options, and resolves
 * once it listens. Its stderr is this process's; it rejects if the child exits first.
 */
export function startChild(
  args: string[],
  nodeOptions: string[] = [],
  source: ChildSource = {},
): Promise<Child> {
  const { root = thisRoot, env } = source;
  const script = join(root, "apps/gateway/bench/child.ts");
  // tsx as that checkout's gateway resolves it.
  const loader = pathToFileURL(
    createRequire(join(root, "apps/gateway/package.json")).resolve("tsx"),
  );
  const child = spawn(
    process.execPath,
    [...nodeOptions, "--conditions=@planfirst/source", "--import", loader.href, script, ...args],
    { stdio: ["ignore", "ignore", "inherit", "ipc"], ...(env === undefined ? {} : { env }) },
  );
  const ask = (command: ChildCommand) =>
    new Promise<ChildReport>((resolve) => {
      child.once("message", (report) => resolve(report as ChildReport));
      child.send(command);
    });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`${args.join(" ")} exited early (${code})`)));
    child.once("message", (report: ChildReport) => {
      if (report.type === "listening") resolve({ process: child, url: report.url, ask });
    });
  });
}

/** Asks the child to close and waits for it to exit. */
export async function stopChild(child: Child): Promise<void> {
  child.process.removeAllListeners("exit");
  const exited = new Promise((resolve) => child.process.once("exit", resolve));
  child.process.send({ type: "close" } satisfies ChildCommand);
  await exited;
}

/** The child's CPU time (user + system, every thread) and its event loop's busy time, µs. */
export async function cpuMicros(child: Child): Promise<{ cpu: number; loop: number }> {
  const report = await child.ask({ type: "cpu" });
  if (report.type !== "cpu") throw new Error("a benchmark server did not report its CPU time");
  return { cpu: report.cpuMicros, loop: report.loopBusyMicros };
}
