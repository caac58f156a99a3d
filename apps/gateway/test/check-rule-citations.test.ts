import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const script = join(
  dirname(fileURLToPath(import.meta.url)),
  "../../../tooling/scripts/check-rule-citations.mjs",
);
const trees: string[] = [];

/**
 * The citations this test needs to be missing are assembled from parts: written out whole, they
 * would be citations of missing rules in this very file, and the repository would fail its own
 * check.
 */
const missing = {
  ruleId: ["SUB", 7].join(""),
  section: ["ladder.md §", 99].join(""),
  subSection: ["quota-signals.md §", "2z"].join(""),
  bareSection: ["§", 14].join(""),
  issue: ["issue", 15].join(" "),
};

/** A rules page: a heading per section, an anchored line per rule id. */
function rulesPage(sections: readonly string[], ids: readonly string[]): string {
  const headings = sections.map((section) => `## §${section} A section`);
  const rules = ids.map((id) => `- <a id="${id}"></a>**${id}** A rule.`);
  return `# Rules\n\n${[...headings, ...rules].join("\n\n")}\n`;
}

const RULES = {
  "docs/rules/ladder.md": rulesPage(["1", "2", "14"], ["SUB1", "SUB2", "S2", "S2b", "T1"]),
  "docs/rules/quota-signals.md": rulesPage(["2", "2a", "2b", "13"], []),
  "docs/rules/README.md": "# Rules and signals\n",
};

/** A repository in a temp dir: `files` maps repository paths to contents. */
function repository(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "planfirst-rule-citations-"));
  trees.push(root);
  for (const [path, text] of Object.entries({ ...RULES, ...files })) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

function check(root?: string) {
  const run = spawnSync(process.execPath, root ? [script, root] : [script], { encoding: "utf8" });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

afterEach(() => {
  for (const root of trees.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe("check-rule-citations", () => {
  it("passes a tree whose citations all resolve, and reads what is not a citation as such", () => {
    const result = check(
      repository({
        "packages/ladder/src/rule.ts": [
          "/** Fails closed (SUB2), stale past its reset (S2, S2b; ladder.md §14). */",
          "export const T0 = Date.parse('2026-01-01T00:00:00Z'); // a time origin, not a rule",
          "// quota-signals.md §2a, §2b is a chain: the second one is checked as quota-signals.md",
          "// RFC 9110 §10.2.3 is another body's numbering; p95, E2E and B2B are other words.",
          "// openai/codex issue 28382 is another project's issue, a source.",
        ].join("\n"),
        "docs/guide.md": "See ladder.md §1–§2 and `docs/rules/ladder.md §14` (T1, SUB1).\n",
        "node_modules/dep/index.ts": `// ${missing.ruleId} in a dependency is not ours.\n`,
      }),
    );
    expect(result.output).toMatch(/, 5 rule ids and 5 sections cited, all defined in docs\/rules/);
    expect(result.status).toBe(0);
  });

  it("fails on a rule id the rules do not define, naming the line and the document", () => {
    const result = check(
      repository({
        "packages/ladder/src/rule.ts": `// fine (SUB2)\n// fails closed (${missing.ruleId})\n`,
      }),
    );
    expect(result.status).toBe(1);
    expect(result.output).toContain(
      `packages/ladder/src/rule.ts:2: cites ${missing.ruleId}, which docs/rules/ladder.md does not define`,
    );
    expect(result.output).not.toContain("rule.ts:1:");
  });

  it("fails on a missing section and a missing sub-section, each with its line", () => {
    const result = check(
      repository({
        "apps/gateway/src/a.ts": `/**\n * Probes (${missing.section}).\n */\n`,
        "docs/b.md": `Intro.\n\nThe headers of ${missing.subSection}.\n`,
      }),
    );
    expect(result.status).toBe(1);
    expect(result.output).toContain(
      `apps/gateway/src/a.ts:2: cites ${missing.section}, which docs/rules/ladder.md does not define`,
    );
    expect(result.output).toContain(
      `docs/b.md:3: cites ${missing.subSection}, which docs/rules/quota-signals.md does not define`,
    );
  });

  it("fails on a section cited without its document, and on an issue number of this project", () => {
    const result = check(
      repository({
        "packages/x/src/c.ts": `// probes (${missing.bareSection})\n// bounded backoff (${missing.issue} item 2)\n`,
      }),
    );
    expect(result.status).toBe(1);
    expect(result.output).toContain(
      `packages/x/src/c.ts:1: cites ${missing.bareSection} without its document (write ladder.md ${missing.bareSection} or quota-signals.md ${missing.bareSection})`,
    );
    expect(result.output).toContain(
      `packages/x/src/c.ts:2: cites "${missing.issue}" of this project's tracker`,
    );
  });

  it("passes on the repository itself", () => {
    const result = check();
    expect(result.output).toContain("all defined in docs/rules");
    expect(result.status).toBe(0);
  });
});
