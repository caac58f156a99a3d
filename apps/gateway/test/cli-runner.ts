import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** A CLI's bin in apps/gateway/node_modules/.bin. */
export function binPath(name: "claude" | "codex" | "copilot" | "gemini"): string {
  return fileURLToPath(new URL(`../node_modules/.bin/${name}`, import.meta.url));
}

/** What a finished CLI run printed. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a CLI to completion without blocking the event loop (the gateway under test runs in this
 * process), killing it after `timeoutMs`. The environment is `env` alone plus PATH, so no
 * login, key or config of the machine leaks in.
 */
export function runCli(
  bin: string,
  args: readonly string[],
  options: { env: Record<string, string>; cwd: string; timeoutMs: number },
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += String(chunk);
    });
    child.stderr.on("data", (chunk) => {
      stderr += String(chunk);
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A temporary directory and its removal. */
export function tempDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
