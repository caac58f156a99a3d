import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const script = join(
  dirname(fileURLToPath(import.meta.url)),
  "../../../tooling/scripts/check-boundaries.mjs",
);
const trees: string[] = [];

/** A workspace in a temp dir: `files` maps repository paths to contents. */
function workspace(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "planfirst-boundaries-"));
  trees.push(root);
  const manifests: Record<string, string> = {
    "packages/quota-cache": "@planfirst/quota-cache",
    "packages/subscription-ladder": "@planfirst/subscription-ladder",
    "packages/spend-ledger": "@planfirst/spend-ledger",
    "packages/billing-catalog": "@planfirst/billing-catalog",
    "apps/gateway": "@planfirst/gateway",
    "apps/cli": "planfirst",
  };
  for (const [dir, name] of Object.entries(manifests)) {
    mkdirSync(join(root, dir, "src"), { recursive: true });
    writeFileSync(join(root, dir, "package.json"), JSON.stringify({ name }));
  }
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

function check(root: string) {
  const run = spawnSync(process.execPath, [script, root], { encoding: "utf8" });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

const CLEAN = {
  "packages/subscription-ladder/src/index.ts":
    'import type { QuotaState } from "@planfirst/quota-cache";\n',
  "packages/quota-cache/src/index.ts": "export const x = 1;\n",
  "apps/gateway/src/dispatch/dispatcher.ts":
    'import { buildTargets } from "../routing/build-pool";\n',
  "apps/gateway/src/routing/build-pool.ts": 'import type { GatewayError } from "../errors";\n',
  "apps/gateway/src/errors.ts": "export class GatewayError extends Error {}\n",
};

afterEach(() => {
  for (const root of trees.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe("check-boundaries", () => {
  it("passes a tree whose imports flow down", () => {
    const result = check(workspace(CLEAN));
    expect(result.output).toContain("no forbidden import");
    expect(result.status).toBe(0);
  });

  it("fails on a type-only import of a ladder rule from the quota cache, naming the file", () => {
    const result = check(
      workspace({
        ...CLEAN,
        "packages/quota-cache/src/rules.ts":
          'import type { LadderOptions } from "@planfirst/subscription-ladder";\n',
      }),
    );
    expect(result.status).toBe(1);
    expect(result.output).toContain(
      "packages/quota-cache/src/rules.ts imports @planfirst/subscription-ladder",
    );
    // The ladder already imports the quota cache, so the same edge is also a package cycle.
    expect(result.output).toContain("import cycle between packages");
  });

  it("fails on an engine package importing the gateway and the ladder importing the ledger", () => {
    const result = check(
      workspace({
        ...CLEAN,
        "packages/billing-catalog/src/index.ts": 'export { x } from "@planfirst/quota-cache";\n',
        "packages/subscription-ladder/src/spend.ts":
          'const ledger = await import("@planfirst/spend-ledger");\nconst gateway = await import("@planfirst/gateway");\n',
      }),
    );
    expect(result.status).toBe(1);
    expect(result.output).toContain(
      "packages/billing-catalog/src/index.ts imports @planfirst/quota-cache",
    );
    expect(result.output).toContain(
      "subscription-ladder/src/spend.ts imports @planfirst/spend-ledger",
    );
    expect(result.output).toContain("subscription-ladder/src/spend.ts imports @planfirst/gateway");
  });

  it("fails when routing imports dispatch, and on a cycle between gateway files", () => {
    const result = check(
      workspace({
        ...CLEAN,
        "apps/gateway/src/routing/build-pool.ts":
          'import type { ClientRequest } from "../dispatch/dispatcher";\n',
        "apps/gateway/src/protocols/a.ts": 'import { b } from "./b";\nexport const a = 1;\n',
        "apps/gateway/src/protocols/b.ts": 'import type { a } from "./a";\nexport const b = 2;\n',
      }),
    );
    expect(result.status).toBe(1);
    expect(result.output).toContain(
      "apps/gateway/src/routing/build-pool.ts imports ../dispatch/dispatcher: gateway routing/ must not import dispatch/",
    );
    expect(result.output).toMatch(
      /import cycle in @planfirst\/gateway: .*protocols\/a\.ts -> .*protocols\/b\.ts/,
    );
  });

  it("fails on a branch on a provider id outside the connectors, in the gateway and the CLI, naming file and line", () => {
    const result = check(
      workspace({
        ...CLEAN,
        "apps/gateway/src/pollers/usage-pollers.ts":
          'export const refusal = (connector: { provider: string }) =>\n  connector.provider === "zai";\n',
        "apps/cli/src/simulate/calibrate.ts":
          'export function source(provider: string) {\n  switch (provider) {\n    case "codex":\n      return "codex";\n  }\n  return null;\n}\n',
      }),
    );
    expect(result.status).toBe(1);
    expect(result.output).toContain(
      'apps/gateway/src/pollers/usage-pollers.ts:2: branches on provider id "zai"',
    );
    expect(result.output).toContain(
      'apps/cli/src/simulate/calibrate.ts:3: branches on provider id "codex"',
    );
  });

  it("lets connectors know their provider, and a wire protocol is no provider id", () => {
    const result = check(
      workspace({
        ...CLEAN,
        "apps/gateway/src/connectors/zai/zai-connector.ts":
          'export const zai = (spec: { provider: string }) => spec.provider === "zai";\n',
        "apps/gateway/src/http/error-body.ts":
          'export const shaped = (protocol: string) => protocol === "anthropic";\n',
      }),
    );
    expect(result.output).toContain("no branch on a provider id outside connectors/");
    expect(result.status).toBe(0);
  });

  const CODECS = {
    "apps/gateway/src/protocols/openai-chat/codec.ts":
      'export const openAiChatCodec = { protocol: "openai-chat", configName: "openai" };\n',
    "apps/gateway/src/protocols/anthropic-messages/codec.ts":
      'export const anthropicMessagesCodec = { protocol: "anthropic-messages", configName: "anthropic" };\n',
  };

  it("fails on a branch on a protocol name outside protocols/, naming the file, line and name", () => {
    const result = check(
      workspace({
        ...CLEAN,
        ...CODECS,
        "apps/gateway/src/dispatch/stream.ts":
          'export const hide = (request: { protocol: string }) =>\n  request.protocol === "openai-chat";\n',
        "apps/gateway/src/connectors/plan.ts": [
          "export function url(protocol: string): string {",
          "  switch (protocol) {",
          '    case "anthropic":',
          '      return "/v1/messages";',
          "    default:",
          '      return "/chat/completions";',
          "  }",
          "}",
          "",
        ].join("\n"),
        "apps/gateway/src/http/error-body.ts":
          'export const shape = (p: string) => ("anthropic-messages" !== p ? 1 : 2);\n',
      }),
    );
    expect(result.status).toBe(1);
    expect(result.output).toContain(
      'apps/gateway/src/dispatch/stream.ts:2 branches on protocol name "openai-chat"',
    );
    expect(result.output).toContain(
      'apps/gateway/src/connectors/plan.ts:3 branches on protocol name "anthropic"',
    );
    expect(result.output).toContain(
      'apps/gateway/src/http/error-body.ts:1 branches on protocol name "anthropic-messages"',
    );
  });

  it("leaves protocols/, provider ids, other strings and tests alone", () => {
    const result = check(
      workspace({
        ...CLEAN,
        ...CODECS,
        "apps/gateway/src/protocols/hub.ts":
          'export const native = (from: string) => from === "openai-chat";\n',
        "apps/gateway/src/connectors/anthropic.ts":
          'export const own = (spec: { provider: string }) => spec.provider === "anthropic";\n',
        "apps/gateway/src/dispatch/mode.ts":
          'export const whole = (mode: string) => mode === "whole";\n',
        "apps/gateway/src/dispatch/stream.test.ts":
          'export const x = (p: string) => p === "openai-chat";\n',
      }),
    );
    expect(result.output).toContain("no forbidden import");
    expect(result.status).toBe(0);
  });

  it("does not check test files", () => {
    const result = check(
      workspace({
        ...CLEAN,
        "apps/gateway/src/routing/build-pool.test.ts": 'import "../app/on-error";\n',
      }),
    );
    expect(result.status).toBe(0);
  });
});
