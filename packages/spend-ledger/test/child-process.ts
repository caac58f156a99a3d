import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
// The tsx loader runs inside the child itself (the tsx CLI would fork a grandchild that a
// SIGKILL of its parent leaves running).
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

/** Children started by {@link spawnTestChild}, so an afterAll can kill what a failure left. */
export const children: ChildProcess[] = [];

/** Runs `test/<script>` in a fresh Node process with the package's source conditions. */
export function spawnTestChild(script: string, args: string[]): ChildProcess {
  const child = spawn(
    process.execPath,
    ["--conditions=@planfirst/source", "--import", tsxLoader, join(here, script), ...args],
    { cwd: join(here, ".."), stdio: ["ignore", "pipe", "pipe"] },
  );
  children.push(child);
  return child;
}

/** SIGKILLs every child still running. */
export function killChildren(): void {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
}

/** Resolves once the child has exited (immediately when it already has). */
export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}
