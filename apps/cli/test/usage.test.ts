import { describe, expect, it } from "vitest";
import packageJson from "../package.json" with { type: "json" };
import { runCli } from "./helpers/run-cli";

describe("command line usage", () => {
  it("--help lists every command and the exit codes, exit 0", async () => {
    const run = await runCli(["--help"]);
    expect(run.exitCode).toBe(0);
    for (const command of ["serve", "explain", "status", "check", "catalog", "init"]) {
      expect(run.stdout).toContain(command);
    }
    expect(run.stdout).toContain("3  gateway unreachable");
  });

  it("--version prints the package version, exit 0", async () => {
    const run = await runCli(["--version"]);
    expect(run.exitCode).toBe(0);
    expect(run.stdout.trim()).toBe(packageJson.version);
  });

  it("an unknown command is a usage error (exit 2)", async () => {
    const run = await runCli(["serv"]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain("unknown command");
  });

  it("no command at all is a usage error (exit 2)", async () => {
    const run = await runCli([]);
    expect(run.exitCode).toBe(2);
  });

  it("an unknown option is a usage error (exit 2)", async () => {
    const run = await runCli(["catalog", "show", "--colour"]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain("unknown option");
  });
});
