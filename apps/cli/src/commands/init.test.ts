import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { runCli } from "../program";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "planfirst-cli-init-ask-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

// A terminal: answers each question when its prompt (`[default]: `) appears.
function terminal(answers: string[]) {
  const stdin = Object.assign(new PassThrough(), { isTTY: true });
  let printed = "";
  const stdout = new Writable({
    write(chunk, _encoding, callback) {
      printed += chunk.toString();
      if (/\]: $/.test(printed)) {
        const answer = answers.shift();
        if (answer !== undefined) setImmediate(() => stdin.write(`${answer}\n`));
      }
      callback();
    },
  });
  return { stdin, stdout, printed: () => printed };
}

describe("planfirst init on a terminal", () => {
  it("asks what the flags left open, re-asks an invalid answer, takes defaults for empty ones", async () => {
    const file = join(dir, "asked.yaml");
    const io = terminal(["zai,ollama", "not-a-port", "4300", "", "1.5", "none"]);
    const exitCode = await runCli(["node", "planfirst", "init", "--file", file], {
      stdin: io.stdin,
      stdout: io.stdout,
      stderr: io.stdout,
      cwd: dir,
      env: {},
    });
    expect(exitCode).toBe(0);
    expect(io.printed()).toContain("must be a whole number");
    const config = parseYaml(await readFile(file, "utf8"));
    expect(config.connections.map((c: { id: string }) => c.id)).toEqual(["zai-coding", "local"]);
    expect(config.server).toMatchObject({ port: 4300, apiKeys: [] });
    expect(config.subscriptionLadder.rungBudgetUsd).toEqual({ cheap: 5, premium: 1.5 });
  });

  it("--yes asks nothing even on a terminal", async () => {
    const file = join(dir, "yes.yaml");
    const io = terminal([]);
    const exitCode = await runCli(["node", "planfirst", "init", "--yes", "--file", file], {
      stdin: io.stdin,
      stdout: io.stdout,
      stderr: io.stdout,
      cwd: dir,
      env: {},
    });
    expect(exitCode).toBe(0);
    expect(io.printed()).not.toContain("]: ");
    const config = parseYaml(await readFile(file, "utf8"));
    expect(config.connections.map((c: { provider: string }) => c.provider)).toEqual([
      "claude",
      "ollama",
      "openrouter",
    ]);
  });
});
