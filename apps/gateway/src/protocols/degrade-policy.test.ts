import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DEGRADE_POLICY, degradeTableMarkdown, refuseField } from "./degrade-policy";
import { ProtocolError } from "./protocol-error";
import { PROTOCOL_NAMES } from "./registry";

describe("the degrade policy", () => {
  it("has one rule per key, each with a reason", () => {
    const keys = DEGRADE_POLICY.map((r) => r.key);
    expect(new Set(keys).size).toBe(keys.length);
    for (const rule of DEGRADE_POLICY) expect(rule.why.length).toBeGreaterThan(10);
  });

  it("names only registered protocols", () => {
    for (const rule of DEGRADE_POLICY) {
      for (const name of [...rule.from, ...rule.to])
        expect(PROTOCOL_NAMES, rule.key).toContain(name);
    }
  });

  it("every refusing rule is applied by some codec, and every applied key is in the table", () => {
    const source = ["openai-chat", "anthropic-messages", "openai-responses"]
      .flatMap((dir) =>
        readdirSync(new URL(`./${dir}/`, import.meta.url))
          .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))
          .map((f) => readFileSync(new URL(`./${dir}/${f}`, import.meta.url), "utf8")),
      )
      .join("\n");
    const used = new Set([...source.matchAll(/refuseField\(\s*"([a-z-]+)"/g)].map((m) => m[1]));
    for (const rule of DEGRADE_POLICY.filter((r) => r.action === "refuse"))
      expect(used).toContain(rule.key);
    const keys = new Set<string>(DEGRADE_POLICY.map((r) => r.key));
    for (const key of used) expect(keys).toContain(key);
  });

  it("a refusal names the field, the target and why", () => {
    const error = refuseField("previous-response-id", "previous_response_id", "openai-chat");
    expect(ProtocolError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "unsupported_field", field: "previous_response_id" });
    expect(error.message).toMatch(
      /^previous_response_id: cannot be sent to an openai-chat upstream: the earlier turns/,
    );
  });

  it("is the table in the gateway README", () => {
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    // Compared cell by cell: the formatter may pad the README's columns to align them.
    const rowsOf = (markdown: string) =>
      markdown
        .split("\n")
        .filter((line) => line.startsWith("|") && !/^\|[\s|:-]+\|$/.test(line))
        .map((line) =>
          line
            .slice(1, -1)
            .split(" | ")
            .map((cell) => cell.trim())
            .join(" | "),
        );
    const table = rowsOf(degradeTableMarkdown());
    const readmeRows = rowsOf(readme);
    const start = readmeRows.indexOf(table[0]!);
    expect(start).toBeGreaterThanOrEqual(0);
    expect(readmeRows.slice(start, start + table.length)).toEqual(table);
  });

  it("renders as a markdown table with a row per rule", () => {
    const lines = degradeTableMarkdown().split("\n");
    expect(lines).toHaveLength(DEGRADE_POLICY.length + 2);
    expect(lines[0]).toBe("| Field | From | To | Action | What happens |");
  });
});
