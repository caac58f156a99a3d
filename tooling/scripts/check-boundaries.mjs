#!/usr/bin/env node
// Fails when an import crosses a boundary the architecture forbids (docs: architecture.md,
// "Packages" and "Gateway layout"). Reads every import of every workspace package and app with
// TypeScript's own scanner, type-only imports included, and checks:
// - package rules: engine packages never import the gateway or the CLI; the quota cache never
//   imports ladder rules; the catalog imports no engine package; the ladder never imports the
//   spend ledger; no cycle between packages;
// - the gateway's folders: data flows down (each folder has a rank, and imports only folders
//   of a lower rank), and no cycle between the gateway's files;
// - providers are known in one place: outside the gateway's connectors/ (and the catalog's data),
//   no code of the gateway or the CLI branches on a provider id, that is compares an expression
//   that names a provider (`connector.provider`, `providerId`) with a string, or switches on one.
// - one protocol vocabulary: outside the gateway's `src/protocols/`, no comparison (`===`,
//   `!==`, `==`, `!=`) and no `case` label tests a value against a protocol name, since what
//   differs per protocol lives on its codec. The names are read from the codecs
//   (`src/protocols/<folder>/codec.ts`: each `protocol:` and `configName:` string), so a new
//   codec's names are covered by its existing. A comparison of a provider id (the other side an
//   expression named `provider`, `spec.provider` say) is a provider branch, not a protocol one:
//   provider ids such as `anthropic` share words with protocol names, so it is not flagged here.
// Test files (`*.test.*`, `test/`, `__fixtures__/`) are not checked: a test may reach anywhere.
//
// Usage: node tooling/scripts/check-boundaries.mjs [repository root]
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(process.argv[2] ?? join(here, "..", ".."));
const ts = createRequire(join(here, "..", "..", "package.json"))("typescript");

/** Engine packages: pure routing and state, published on their own. */
const ENGINE = [
  "@planfirst/billing-catalog",
  "@planfirst/connection-billing",
  "@planfirst/quota-cache",
  "@planfirst/spend-ledger",
  "@planfirst/subscription-ladder",
  "@planfirst/tier-resolver",
];
const APPS = ["@planfirst/gateway", "planfirst", "@planfirst/cli"];

/** [importer, imported packages, why]: each a forbidden edge between packages. */
const PACKAGE_RULES = [
  ...ENGINE.map((name) => [name, APPS, "an engine package must not import the gateway or the CLI"]),
  [
    "@planfirst/quota-cache",
    ["@planfirst/subscription-ladder", "@planfirst/connection-billing", "@planfirst/tier-resolver"],
    "the quota cache holds state and must not import ladder rules",
  ],
  [
    "@planfirst/billing-catalog",
    ENGINE.filter((name) => name !== "@planfirst/billing-catalog"),
    "the catalog is data and must not import an engine package",
  ],
  [
    "@planfirst/subscription-ladder",
    ["@planfirst/spend-ledger"],
    "the ladder must not import the spend ledger",
  ],
];

/**
 * Ranks of the gateway's folders (and root files): a file may import only from a lower rank.
 * Equal ranks may not import each other.
 */
const GATEWAY_RANKS = {
  "(composition)": 100, // index.ts main.ts server.ts gateway.ts generation.ts
  app: 90,
  status: 80,
  pollers: 80,
  dispatch: 70,
  routing: 60,
  "(deps)": 55, // deps.ts: the injected interfaces
  http: 50,
  connectors: 45,
  upstream: 42,
  observability: 30,
  "(redis-client)": 25, // redis-client.ts: the lazy Redis client of the gateway's own small stores
  config: 20, // reads protocol names from the codec registry
  protocols: 15, // wire formats only: the lowest layer but errors.ts
  "(errors)": 10, // errors.ts
};
const COMPOSITION_FILES = new Set(["index", "main", "server", "gateway", "generation"]);

/** Packages scanned for branches on a provider id, with the `src/` folders that may branch. */
const PROVIDER_KNOWLEDGE = { "@planfirst/gateway": ["connectors"], planfirst: [] };
const PROVIDER_RULE =
  "a provider is known only by its connector (apps/gateway/src/connectors/) and the catalog";
const NAMES_A_PROVIDER = /provider/i;
const EQUALITY = new Set([
  ts.SyntaxKind.EqualsEqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsEqualsToken,
  ts.SyntaxKind.EqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsToken,
]);
const SOURCE = /\.(?:ts|tsx|mts|cts|js|mjs|cjs)$/;

function isTestPath(path) {
  return (
    /\.test\.[cm]?[jt]sx?$/.test(path) ||
    path.split(sep).some((p) => p === "test" || p === "__fixtures__")
  );
}

function walk(dir, out = []) {
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir)) {
    if (entry === "node_modules" || entry === "dist") continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (SOURCE.test(entry) && !entry.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

function workspacePackages() {
  const found = [];
  for (const group of ["packages", "apps", "tooling"]) {
    const dir = join(root, group);
    if (!existsSync(dir)) continue;
    for (const entry of readdirSync(dir)) {
      const manifest = join(dir, entry, "package.json");
      if (!existsSync(manifest)) continue;
      const { name } = JSON.parse(readFileSync(manifest, "utf8"));
      found.push({ name, dir: join(dir, entry) });
    }
  }
  return found;
}

function importsOf(file) {
  const text = readFileSync(file, "utf8");
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
}

/** The workspace package a specifier names (`@planfirst/quota-cache/sqlite` → the package). */
function packageOf(specifier, names) {
  for (const name of names) {
    if (specifier === name || specifier.startsWith(`${name}/`)) return name;
  }
  return null;
}

function resolveRelative(from, specifier) {
  const base = resolve(dirname(from), specifier);
  const stem = base.replace(/\.(?:js|mjs|cjs)$/, "");
  for (const candidate of [
    base,
    `${stem}.ts`,
    `${stem}.tsx`,
    `${stem}.mts`,
    join(base, "index.ts"),
  ]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/** Every cycle's first occurrence in a directed graph (Map node → Set of nodes). */
function findCycles(graph) {
  const cycles = [];
  const state = new Map();
  const stack = [];
  const visit = (node) => {
    state.set(node, 1);
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 1) cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 2);
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return cycles;
}

function gatewayFolderOf(srcDir, file) {
  const parts = relative(srcDir, file).split(sep);
  if (parts.length > 1) return parts[0];
  const stem = parts[0].replace(SOURCE, "");
  if (COMPOSITION_FILES.has(stem)) return "(composition)";
  return `(${stem})`;
}

function isStringLiteral(node) {
  return ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node);
}

/** Each `line: branches on "id"` where `file` compares a provider-naming expression with a string or switches on one. */
function providerBranches(file) {
  const source = ts.createSourceFile(
    file,
    readFileSync(file, "utf8"),
    ts.ScriptTarget.Latest,
    true,
  );
  const found = [];
  const at = (node, literal) =>
    found.push(
      `${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: branches on provider id "${literal}"`,
    );
  const visit = (node) => {
    if (ts.isBinaryExpression(node) && EQUALITY.has(node.operatorToken.kind)) {
      for (const [side, other] of [
        [node.left, node.right],
        [node.right, node.left],
      ]) {
        if (isStringLiteral(side) && NAMES_A_PROVIDER.test(other.getText(source))) {
          at(node, side.text);
        }
      }
    }
    if (ts.isSwitchStatement(node) && NAMES_A_PROVIDER.test(node.expression.getText(source))) {
      for (const clause of node.caseBlock.clauses) {
        if (ts.isCaseClause(clause) && isStringLiteral(clause.expression)) {
          at(clause, clause.expression.text);
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The protocol names the gateway's codecs declare: their `protocol` and `configName` strings. */
function protocolNames(srcDir) {
  const names = new Set();
  const dir = join(srcDir, "protocols");
  if (!existsSync(dir)) return names;
  for (const entry of readdirSync(dir)) {
    const file = join(dir, entry, "codec.ts");
    if (!existsSync(file)) continue;
    const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
    const visit = (node) => {
      if (
        ts.isPropertyAssignment(node) &&
        ts.isIdentifier(node.name) &&
        (node.name.text === "protocol" || node.name.text === "configName") &&
        ts.isStringLiteralLike(node.initializer)
      ) {
        names.add(node.initializer.text);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return names;
}

/** The name an expression ends in (`spec.provider` → `provider`), or "". */
function lastName(node) {
  let expression = node;
  while (
    ts.isParenthesizedExpression(expression) ||
    ts.isNonNullExpression(expression) ||
    ts.isAsExpression(expression)
  ) {
    expression = expression.expression;
  }
  if (ts.isIdentifier(expression)) return expression.text;
  if (ts.isPropertyAccessExpression(expression)) return expression.name.text;
  return "";
}

/** `[line, name]` of every branch on a protocol name in one file. */
function protocolBranches(file, names) {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
  const found = [];
  const named = (literal, other) =>
    ts.isStringLiteralLike(literal) &&
    names.has(literal.text) &&
    !/provider/i.test(lastName(other));
  const report = (node, literal) =>
    found.push([
      source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1,
      literal.text,
    ]);
  const visit = (node, discriminant) => {
    if (ts.isBinaryExpression(node) && EQUALITY.has(node.operatorToken.kind)) {
      if (named(node.left, node.right)) report(node, node.left);
      else if (named(node.right, node.left)) report(node, node.right);
    }
    if (ts.isCaseClause(node) && discriminant && named(node.expression, discriminant)) {
      report(node, node.expression);
    }
    const inner = ts.isSwitchStatement(node) ? node.expression : discriminant;
    ts.forEachChild(node, (child) => visit(child, ts.isCaseBlock(child) ? inner : discriminant));
  };
  visit(source, undefined);
  return found;
}

const problems = [];
const packages = workspacePackages();
const names = packages.map((p) => p.name);
const packageGraph = new Map(names.map((n) => [n, new Set()]));

for (const pkg of packages) {
  const srcDir = join(pkg.dir, "src");
  const files = walk(srcDir).filter((file) => !isTestPath(relative(pkg.dir, file)));
  const fileGraph = new Map();
  const knowing = PROVIDER_KNOWLEDGE[pkg.name];
  for (const file of files) {
    const shown = relative(root, file);
    if (knowing && !knowing.includes(relative(srcDir, file).split(sep)[0])) {
      for (const branch of providerBranches(file)) {
        problems.push(`${shown}:${branch}: ${PROVIDER_RULE}`);
      }
    }
    const edges = new Set();
    for (const specifier of importsOf(file)) {
      const imported = packageOf(specifier, names);
      if (imported && imported !== pkg.name) {
        packageGraph.get(pkg.name).add(imported);
        for (const [importer, forbidden, why] of PACKAGE_RULES) {
          if (importer === pkg.name && forbidden.includes(imported)) {
            problems.push(`${shown} imports ${specifier}: ${why}`);
          }
        }
      }
      if (!specifier.startsWith(".")) continue;
      const target = resolveRelative(file, specifier);
      if (!target) continue;
      edges.add(target);
      if (pkg.name === "@planfirst/gateway" && target.startsWith(srcDir + sep)) {
        const from = gatewayFolderOf(srcDir, file);
        const to = gatewayFolderOf(srcDir, target);
        if (from === to) continue;
        const fromRank = GATEWAY_RANKS[from];
        const toRank = GATEWAY_RANKS[to];
        if (fromRank === undefined || toRank === undefined) {
          problems.push(
            `${shown} imports ${specifier}: gateway folder ${fromRank === undefined ? from : to} has no rank in check-boundaries.mjs`,
          );
        } else if (toRank >= fromRank) {
          problems.push(
            `${shown} imports ${specifier}: gateway ${from}/ must not import ${to}/ (data flows down)`,
          );
        }
      }
    }
    fileGraph.set(file, edges);
  }
  if (pkg.name === "@planfirst/gateway") {
    const names = protocolNames(srcDir);
    const protocolsDir = join(srcDir, "protocols") + sep;
    for (const file of files) {
      if (file.startsWith(protocolsDir)) continue;
      for (const [line, name] of protocolBranches(file, names)) {
        problems.push(
          `${relative(root, file)}:${line} branches on protocol name "${name}": what differs per protocol belongs on its codec (src/protocols/)`,
        );
      }
    }
  }
  for (const cycle of findCycles(fileGraph)) {
    problems.push(
      `import cycle in ${pkg.name}: ${cycle.map((f) => relative(root, f)).join(" -> ")}`,
    );
  }
}
for (const cycle of findCycles(packageGraph)) {
  problems.push(`import cycle between packages: ${cycle.join(" -> ")}`);
}

if (problems.length > 0) {
  console.error(`check-boundaries: ${problems.length} problem(s)`);
  for (const problem of problems) console.error(`  - ${problem}`);
  process.exit(1);
}
console.log(
  `check-boundaries: ${packages.length} packages, no forbidden import, no branch on a provider id outside connectors/ or on a protocol name outside protocols/`,
);
