#!/usr/bin/env node
// Fails when the repository cites a rule or a section that docs/rules does not define, or cites
// an issue number of this project (a reader of the code cannot look that up; say what the code
// does instead).
//
// What is defined is read from docs/rules/*.md (README.md, the index, aside), never listed here:
// - a rule id is an anchor `<a id="SUB2"></a>`: upper-case letters (its family) and a number from
//   1 to 99 without a leading zero, then an optional lower-case letter (`S2a`);
// - a section is a heading whose text starts with the section sign and a number, with an
//   optional lower-case letter for a sub-section.
//
// What is a citation, in .ts/.mts/.cts/.js/.mjs/.cjs/.md files outside node_modules, dist,
// dot-folders, docs/rules itself and CHANGELOG.md:
// - Rule id: a family that docs/rules defines, a number from 1 to 99 without a leading zero, an
//   optional lower-case letter, as a whole word (case-sensitive). Rules are numbered from 1, so a
//   zero never names one: `T0`, `T00` are the tests' time origins, not rule T0, and need no
//   renaming. Lower case never names one either (`p95`, `e2e`), nor a longer run of letters or
//   digits (`E2E`, `B2B`, a three-digit number). Within that grammar every match is a citation:
//   a test title or a constant that looks like a rule id is renamed ("pitfall 6", not a P-name).
// - Section: the section sign and a number, with an optional lower-case letter. Its document is
//   the one named right before it on the same line (`ladder.md §1`, `quota-signals §2a`,
//   `docs/rules/ladder.md §7`). A section sign that follows another one only through a separator
//   (`ladder.md §5–§6`, `quota-signals.md §2a, §2b`, `quota-signals.md §4b and §4c`) cites the
//   same document. `RFC 9110 §10.2.3` is another body's numbering and is skipped. One with no
//   document is refused: in a package that cites both documents, a bare number is two different
//   sections, and a line break between the document and the number counts as none.
// - Issue: the word "issue" or "issues" followed by a number (with or without `#`), unless an
//   `owner/name` repository is named right before it (another project's issue is a source).
//
// Usage: node tooling/scripts/check-rule-citations.mjs [repository root]
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(process.argv[2] ?? join(here, "..", ".."));
const RULES_DIR = join(root, "docs", "rules");
const SCANNED = /\.(?:ts|tsx|mts|cts|js|mjs|cjs|md)$/;
const SKIPPED_DIRS = new Set(["node_modules", "dist", "coverage"]);

const ANCHOR = /<a id="([A-Z]+)([1-9][0-9]?[a-z]?)"><\/a>/g;
const HEADING = /^#{1,6}\s+§([1-9][0-9]?[a-z]?)(?![0-9A-Za-z])/;
const SECTION = /§\s?([0-9]+(?:\.[0-9]+)*[a-z]?)/g;
const ISSUE = /\bissues?\s+#?[0-9]+/gi;
const DOCUMENT_BEFORE = /(?:^|[^\w.-])([A-Za-z][\w-]*)(\.md)?[\s,]*$/;
const RFC_BEFORE = /\bRFC\s?[0-9]+[\s,]*$/;
const SEPARATOR = /^[\s,/–—-]*(?:(?:and|or|to)\s*)?$/;
const REPOSITORY_BEFORE = /[\w.-]+\/[\w.-]+\s+$/;

/** Each document of docs/rules: its stem, its sections, and the rule ids anchored in it. */
function readRules() {
  const documents = new Map();
  const ids = new Map();
  const families = new Map();
  if (!existsSync(RULES_DIR)) return { documents, ids, families };
  for (const entry of readdirSync(RULES_DIR).sort()) {
    if (!entry.endsWith(".md") || entry === "README.md") continue;
    const stem = entry.slice(0, -3);
    const text = readFileSync(join(RULES_DIR, entry), "utf8");
    const sections = new Set();
    for (const line of text.split("\n")) {
      const heading = HEADING.exec(line);
      if (heading) sections.add(heading[1]);
    }
    documents.set(stem, { path: `docs/rules/${entry}`, sections });
    for (const [, family, rest] of text.matchAll(ANCHOR)) {
      ids.set(`${family}${rest}`, stem);
      if (!families.has(family)) families.set(family, stem);
    }
  }
  return { documents, ids, families };
}

function walk(dir, out = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name.startsWith(".") || SKIPPED_DIRS.has(entry.name)) continue;
      if (path === RULES_DIR) continue;
      walk(path, out);
    } else if (
      entry.isFile() &&
      SCANNED.test(entry.name) &&
      !entry.name.endsWith(".d.ts") &&
      entry.name !== "CHANGELOG.md"
    ) {
      out.push(path);
    }
  }
  return out;
}

const { documents, ids, families } = readRules();
if (ids.size === 0) {
  console.error("check-rule-citations: docs/rules defines no rule id (no <a id> anchor)");
  process.exit(1);
}
const docNames = [...documents.keys()].map((stem) => `${stem}.md`);
// Longest family first, so `SUB2` is never read as an `S` citation.
const familyPattern = [...families.keys()].sort((a, b) => b.length - a.length).join("|");
const RULE_ID = new RegExp(
  `(?<![A-Za-z0-9_])(${familyPattern})([1-9][0-9]?)([a-z]?)(?![A-Za-z0-9_])`,
  "g",
);

/**
 * The document a `§` at `index` of `line` cites: a stem, `null` for another body's numbering
 * (an RFC), or `undefined` when nothing names one. `previous` is the last `§` before it.
 */
function documentOf(line, index, previous) {
  const before = line.slice(0, index);
  if (RFC_BEFORE.test(before)) return null;
  const named = DOCUMENT_BEFORE.exec(before);
  if (named && (named[2] || documents.has(named[1]))) return named[1];
  if (previous && SEPARATOR.test(line.slice(previous.end, index))) return previous.document;
  return undefined;
}

const problems = [];
const cited = { ids: new Set(), sections: new Set() };
const files = walk(root);
for (const file of files) {
  const shown = relative(root, file).split(sep).join("/");
  const lines = readFileSync(file, "utf8").split("\n");
  lines.forEach((line, i) => {
    const at = `${shown}:${i + 1}`;
    for (const match of line.matchAll(RULE_ID)) {
      const id = match[0];
      if (ids.has(id)) {
        cited.ids.add(id);
        continue;
      }
      const home = documents.get(families.get(match[1]));
      problems.push(`${at}: cites ${id}, which ${home.path} does not define`);
    }
    let previous;
    for (const match of line.matchAll(SECTION)) {
      const section = match[1];
      const document = documentOf(line, match.index, previous);
      previous = { end: match.index + match[0].length, document };
      if (document === null) continue;
      if (document === undefined) {
        const where = docNames.map((name) => `${name} §${section}`).join(" or ");
        problems.push(`${at}: cites §${section} without its document (write ${where})`);
      } else if (!documents.has(document)) {
        problems.push(`${at}: cites ${document}.md §${section}, which is not in docs/rules`);
      } else if (!documents.get(document).sections.has(section)) {
        const { path } = documents.get(document);
        problems.push(`${at}: cites ${document}.md §${section}, which ${path} does not define`);
      } else {
        cited.sections.add(`${document} §${section}`);
      }
    }
    for (const match of line.matchAll(ISSUE)) {
      if (REPOSITORY_BEFORE.test(line.slice(0, match.index))) continue;
      problems.push(
        `${at}: cites "${match[0]}" of this project's tracker; say what it means instead`,
      );
    }
  });
}

if (problems.length > 0) {
  for (const problem of problems) console.error(problem);
  console.error(`check-rule-citations: ${problems.length} citation(s) docs/rules cannot answer`);
  process.exit(1);
}
console.log(
  `check-rule-citations: ${files.length} files, ${cited.ids.size} rule ids and ` +
    `${cited.sections.size} sections cited, all defined in docs/rules`,
);
