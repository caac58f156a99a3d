import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { GatewayConfigInput } from "../src/config/schema";
import { chat, ENV, useReloadBed } from "./config-reload-helpers";
import { standardConfig } from "./fixtures";
import { waitFor } from "./harness";

// What starts a reload besides SIGHUP and `planfirst reload`: POST /v1/admin/reload for an admin
// key, and the file watch of server.reloadOnChange.

const { bed, extraConnection, withConnections, startFromFile } = useReloadBed();

describe("config reload", () => {
  it("answers POST /v1/admin/reload for an admin key, and no other caller", async () => {
    const keys = {
      apiKeys: [
        { key: "env:ADMIN_KEY", id: "ops", role: "admin" as const },
        { key: "env:TEAM_KEY", id: "team", connections: ["claude-plan"] },
      ],
    };
    const harness = await bed.start({
      config: standardConfig(bed.fakes, { server: keys }),
      env: { ...ENV, ADMIN_KEY: "pf-admin-secret-555", TEAM_KEY: "pf-team-secret-666" },
      configFile: true,
    });
    const reload = (key?: string) =>
      fetch(`${harness.url}/v1/admin/reload`, {
        method: "POST",
        headers: key ? { authorization: `Bearer ${key}` } : {},
      });

    expect((await reload()).status).toBe(401);
    const limited = await reload("pf-team-secret-666");
    expect(limited.status).toBe(403);
    expect(await limited.json()).toMatchObject({
      error: { code: "admin_key_required", message: expect.stringContaining("team") },
    });

    harness.writeConfig(
      withConnections((connections) => [...connections, extraConnection()], { server: keys }),
    );
    const done = await reload("pf-admin-secret-555");
    expect(done.status).toBe(200);
    expect(await done.json()).toMatchObject({
      reloaded: true,
      generation: 2,
      connections: { added: ["extra"] },
    });

    writeFileSync(harness.configPath!, "{ not json");
    const broken = await reload("pf-admin-secret-555");
    expect(broken.status).toBe(422);
    const body = (await broken.json()) as {
      error: { code: string; message: string; generation: number; problems: unknown[] };
    };
    expect(body.error).toMatchObject({ code: "config_reload_refused", generation: 2 });
    expect(body.error.message).toContain(harness.configPath!);
    expect(body.error.problems).toHaveLength(1);
    expect(JSON.stringify(body)).not.toContain("pf-admin-secret-555");
  });

  it("refuses POST /v1/admin/reload on a gateway without client keys (SIGHUP reloads it)", async () => {
    const harness = await startFromFile();
    const response = await fetch(`${harness.url}/v1/admin/reload`, { method: "POST" });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({
      error: { code: "admin_key_required", message: expect.stringContaining("SIGHUP") },
    });
  });

  it("follows the file with server.reloadOnChange, through editors that replace it", async () => {
    const watched = (config: GatewayConfigInput): GatewayConfigInput => ({
      ...config,
      server: { ...config.server, reloadOnChange: true },
    });
    const harness = await startFromFile(watched(standardConfig(bed.fakes)));
    const models = async () =>
      (
        (await (await fetch(`${harness.url}/v1/models`)).json()) as { data: { id: string }[] }
      ).data.map((model) => model.id);
    // Save as editors do: a new file renamed over the old one.
    const save = (config: GatewayConfigInput) => {
      const path = harness.configPath!;
      harness.writeConfig(config);
      const text = readFileSync(path, "utf8");
      writeFileSync(`${path}.swp`, text);
      renameSync(`${path}.swp`, path);
    };

    save(watched(withConnections((connections) => [...connections, extraConnection()])));
    await waitFor(async () => (await models()).includes("glm-4.6"), {
      what: "the watch to reload the added connection",
    });
    save(watched(standardConfig(bed.fakes)));
    await waitFor(async () => !(await models()).includes("glm-4.6"), {
      what: "the watch to follow the replaced file",
    });
    expect((await chat(harness, "claude-sonnet-4-5")).status).toBe(200);
  });
});
