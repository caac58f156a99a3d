#!/usr/bin/env node
// Fails when a source file exports a name that no other file uses: dead code to delete, or a
// name the file uses only itself, which should not be exported. Reads every file with
// TypeScript's own parser (syntax only, no type checking), so it takes a few seconds.
//
// Checked: the exports (functions, consts, classes, types, interfaces, enums, re-exports) of the
// source files under `apps/*/src`, `packages/*/src` and `tooling/*/src`, outside test files
// (`*.test.*`, `test/`, `__fixtures__/`), `dist` and `packages/_template` (a package to copy).
//
// Counted as a use, from any other file of the repository (tests, benches and tooling too):
// - an import or a re-export by name (`import { x }`, `import type { x }`, `export { x } from`,
//   a default import), and `import("./file").x` in a type;
// - `import * as ns` followed by `ns.x` (any other use of `ns` uses every export);
// - a dynamic `import()`, a `require()`, an `export *` or a bare `import("./file")` type: every
//   export of the file;
// - a package's public entry: `src/index.ts` and each file its package.json `exports` map or
//   `bin` names (a `dist/` path read as its `src/` file). What it exports is the published API.
// Specifiers resolve as relative paths (`.js` → `.ts`, a directory → its `index.ts`) and as
// workspace package names: `@planfirst/x` → its public entry, `@planfirst/x/sub` → the file its
// exports map names for `./sub` under the `@planfirst/source` condition.
//
// Usage: node tooling/scripts/check-unused-exports.mjs [repository root]
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(process.argv[2] ?? join(here, "..", ".."));
const ts = createRequire(join(here, "..", "..", "package.json"))("typescript");

const SOURCE = /\.(?:ts|tsx|mts|cts|js|mjs|cjs)$/;
const SKIPPED_DIRS = new Set(["node_modules", "dist", "coverage"]);
const GROUPS = ["apps", "packages", "tooling"];
const TEMPLATE = join(root, "packages", "_template");
/** Every export of the file counts as used. */
const ALL = "*";

function isTestPath(path) {
  return (
    /\.test\.[cm]?[jt]sx?$/.test(path) ||
    path.split(sep).some((p) => p === "test" || p === "__fixtures__")
  );
}

function walk(dir, out = []) {
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name.startsWith(".") || SKIPPED_DIRS.has(entry.name)) continue;
      walk(path, out);
    } else if (entry.isFile() && SOURCE.test(entry.name) && !entry.name.endsWith(".d.ts")) {
      out.push(path);
    }
  }
  return out;
}

function existingFile(path) {
  return existsSync(path) && statSync(path).isFile() ? path : null;
}

/** The source file a path names: itself, its `.ts` twin, or its directory's `index.ts`. */
function sourceFile(base) {
  const stem = base.replace(/\.(?:js|mjs|cjs)$/, "");
  for (const candidate of [base, `${stem}.ts`, `${stem}.tsx`, `${stem}.mts`, `${stem}.cts`]) {
    if (existingFile(candidate)) return candidate;
  }
  return existingFile(join(base, "index.ts"));
}

/** The `src/` file a built path stands for (`./dist/bin.js` → `src/bin.ts`), or the path itself. */
function fromBuilt(dir, target) {
  const built = /^\.?\/?dist\/(.+?)(?:\.d)?\.[cm]?[jt]s$/.exec(target);
  return sourceFile(join(dir, built ? join("src", built[1]) : target));
}

/** What an exports-map entry names: its `@planfirst/source` file, else its first built file. */
function exportTarget(value) {
  if (typeof value === "string") return value;
  if (!value || typeof value !== "object") return null;
  if (typeof value["@planfirst/source"] === "string") return value["@planfirst/source"];
  for (const inner of Object.values(value)) {
    const target = exportTarget(inner);
    if (target) return target;
  }
  return null;
}

/** Each workspace package: its name, and its public entry files by subpath (`.`, `./sqlite`). */
function workspacePackages() {
  const found = [];
  for (const group of GROUPS) {
    const dir = join(root, group);
    if (!existsSync(dir)) continue;
    for (const entry of readdirSync(dir)) {
      const pkgDir = join(dir, entry);
      const manifest = join(pkgDir, "package.json");
      if (!existsSync(manifest)) continue;
      const { name, exports, bin } = JSON.parse(readFileSync(manifest, "utf8"));
      const subpaths = new Map();
      const index = existingFile(join(pkgDir, "src", "index.ts"));
      if (index) subpaths.set(".", index);
      const map =
        typeof exports === "string" || (exports && !Object.keys(exports)[0]?.startsWith("."))
          ? { ".": exports }
          : (exports ?? {});
      for (const [subpath, value] of Object.entries(map)) {
        const target = exportTarget(value);
        const file = target && SOURCE.test(target) ? fromBuilt(pkgDir, target) : null;
        if (file) subpaths.set(subpath, file);
      }
      const bins = typeof bin === "string" ? [bin] : Object.values(bin ?? {});
      const entries = new Set(subpaths.values());
      for (const target of bins) {
        const file = fromBuilt(pkgDir, target);
        if (file) entries.add(file);
      }
      found.push({ name, subpaths, entries });
    }
  }
  return found;
}

const packages = workspacePackages();

/** The file a specifier names from `from`, or null (a dependency, a missing file). */
function resolveSpecifier(from, specifier) {
  if (specifier.startsWith(".")) return sourceFile(resolve(dirname(from), specifier));
  for (const pkg of packages) {
    if (specifier === pkg.name) return pkg.subpaths.get(".") ?? null;
    if (specifier.startsWith(`${pkg.name}/`)) {
      return pkg.subpaths.get(`.${specifier.slice(pkg.name.length)}`) ?? null;
    }
  }
  return null;
}

function hasExportModifier(node) {
  return ts.canHaveModifiers(node)
    ? (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
    : false;
}

function isDefault(node) {
  return (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);
}

function bindingNames(name, out = []) {
  if (ts.isIdentifier(name)) out.push(name);
  else
    for (const element of name.elements)
      if (!ts.isOmittedExpression(element)) bindingNames(element.name, out);
  return out;
}

/** An identifier that refers to a binding, not one that declares or names a property. */
function isReference(node) {
  const parent = node.parent;
  if (!parent) return false;
  if (ts.isShorthandPropertyAssignment(parent)) return true;
  if (ts.isQualifiedName(parent)) return parent.left === node;
  if (ts.isPropertyAccessExpression(parent)) return parent.expression === node;
  return parent.name !== node && parent.propertyName !== node;
}

/**
 * One file read: `exports` (name → its line and local name), `uses` ([specifier, names or ALL])
 * and `referenced` (the identifiers it refers to, to tell an export it uses itself from dead code).
 */
function readFile(file) {
  const source = ts.createSourceFile(
    file,
    readFileSync(file, "utf8"),
    ts.ScriptTarget.Latest,
    true,
  );
  const exports = new Map();
  const uses = [];
  const namespaces = new Map();
  const referenced = new Set();
  const lineOf = (node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  /** `local`: the name the file declares it by, or null when an export list names it. */
  const exported = (name, node, local = name) => {
    if (!exports.has(name)) exports.set(name, { line: lineOf(node), local });
  };

  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
      const specifier = statement.moduleSpecifier.text;
      const clause = statement.importClause;
      if (!clause) continue;
      const names = [];
      if (clause.name) names.push("default");
      const bindings = clause.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) {
        namespaces.set(bindings.name.text, specifier);
      } else if (bindings) {
        for (const element of bindings.elements) {
          names.push((element.propertyName ?? element.name).text);
        }
      }
      if (names.length > 0) uses.push([specifier, names]);
    } else if (ts.isExportDeclaration(statement)) {
      const specifier =
        statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier)
          ? statement.moduleSpecifier.text
          : null;
      const clause = statement.exportClause;
      if (!clause) {
        if (specifier) uses.push([specifier, ALL]);
      } else if (ts.isNamespaceExport(clause)) {
        exported(clause.name.text, clause.name, null);
        if (specifier) uses.push([specifier, ALL]);
      } else {
        const names = [];
        for (const element of clause.elements) {
          const local = (element.propertyName ?? element.name).text;
          exported(element.name.text, element.name, null);
          names.push(local);
        }
        if (specifier) uses.push([specifier, names]);
      }
    } else if (ts.isExportAssignment(statement)) {
      if (!statement.isExportEquals) exported("default", statement, "");
    } else if (hasExportModifier(statement)) {
      if (ts.isVariableStatement(statement)) {
        for (const declaration of statement.declarationList.declarations) {
          for (const name of bindingNames(declaration.name)) exported(name.text, name);
        }
      } else if (isDefault(statement)) {
        exported("default", statement, statement.name?.text ?? "");
      } else if (statement.name) {
        exported(statement.name.text, statement.name);
      }
    }
  }

  const visit = (node) => {
    if (ts.isCallExpression(node)) {
      const [argument] = node.arguments;
      const dynamic =
        node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === "require");
      if (dynamic && argument && ts.isStringLiteralLike(argument)) uses.push([argument.text, ALL]);
    } else if (ts.isImportTypeNode(node)) {
      const argument = ts.isLiteralTypeNode(node.argument) ? node.argument.literal : null;
      if (argument && ts.isStringLiteral(argument)) {
        let qualifier = node.qualifier;
        while (qualifier && ts.isQualifiedName(qualifier)) qualifier = qualifier.left;
        uses.push([argument.text, qualifier && !node.isTypeOf ? [qualifier.text] : ALL]);
      }
    } else if (ts.isIdentifier(node) && isReference(node)) {
      referenced.add(node.text);
      const specifier = namespaces.get(node.text);
      if (specifier !== undefined && !ts.isNamespaceImport(node.parent)) {
        const parent = node.parent;
        if (ts.isPropertyAccessExpression(parent)) uses.push([specifier, [parent.name.text]]);
        else if (ts.isQualifiedName(parent)) uses.push([specifier, [parent.right.text]]);
        else uses.push([specifier, ALL]);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { exports, uses, referenced };
}

const files = walk(root);
const read = new Map(files.map((file) => [file, readFile(file)]));

/** file → Set of names other files use, or ALL. */
const used = new Map();
const use = (file, names) => {
  if (names === ALL || used.get(file) === ALL) used.set(file, ALL);
  else {
    const set = used.get(file) ?? new Set();
    for (const name of names) set.add(name);
    used.set(file, set);
  }
};
for (const pkg of packages) for (const entry of pkg.entries) use(entry, ALL);
for (const [file, { uses }] of read) {
  for (const [specifier, names] of uses) {
    const target = resolveSpecifier(file, specifier);
    if (target && target !== file) use(target, names);
  }
}

const checked = files.filter((file) => {
  const shown = relative(root, file);
  const [group, , src] = shown.split(sep);
  return (
    GROUPS.includes(group) &&
    src === "src" &&
    !file.startsWith(TEMPLATE + sep) &&
    !isTestPath(shown)
  );
});

const problems = [];
let exportCount = 0;
for (const file of checked) {
  const { exports, referenced } = read.get(file);
  exportCount += exports.size;
  const usedNames = used.get(file);
  if (usedNames === ALL) continue;
  for (const [name, { line, local }] of exports) {
    if (usedNames?.has(name)) continue;
    const fix =
      local === null
        ? "drop it from its export list"
        : referenced.has(local)
          ? "used only inside its file: drop `export`"
          : "used nowhere: delete it";
    problems.push(
      `${relative(root, file).split(sep).join("/")}:${line}: export ${name} is not imported by any other file (${fix})`,
    );
  }
}

if (problems.length > 0) {
  for (const problem of problems) console.error(problem);
  console.error(`check-unused-exports: ${problems.length} export(s) no other file uses`);
  process.exit(1);
}
console.log(
  `check-unused-exports: ${checked.length} source files, ${exportCount} exports, each used by another file or published by its package`,
);
