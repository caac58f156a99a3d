import type { z } from "zod";
import { type Catalog, catalogSchema, connectionEntryKey, modelPriceKey } from "./catalog";
import { connectionBillingEntrySchema, modelPriceSchema } from "./schema";

/** What kind of problem a catalog has: a schema violation or a key defined twice. */
export type CatalogProblemCode = "schema" | "duplicate-connection" | "duplicate-model";

/** One problem found in a catalog. */
export interface CatalogProblem {
  /** Where the problem is, e.g. `connections[3].overage`; `""` for the catalog itself. */
  path: string;
  /** What is wrong, naming the allowed values where there is a fixed set of them. */
  message: string;
  /** The kind of problem. */
  code: CatalogProblemCode;
}

/** Result of {@link validateCatalog}: the parsed catalog, or every problem found. */
export type CatalogValidationResult =
  | { ok: true; catalog: Catalog }
  | { ok: false; problems: CatalogProblem[] };

const allowedKeysByList: Record<string, readonly string[]> = {
  connections: Object.keys(connectionBillingEntrySchema.shape),
  models: Object.keys(modelPriceSchema.shape),
};
const catalogKeys = Object.keys(catalogSchema.shape);

/**
 * Checks a catalog (`{ connections, models }`, either list may be missing) and returns every
 * problem, not only the first: schema violations (unknown enum values with the allowed list,
 * negative prices, dates that are not real `YYYY-MM-DD` dates, unknown keys, malformed URLs),
 * duplicate (provider, authType) keys among connections (no authType = provider-wide; compared
 * case-insensitively) and duplicate (provider, model) pairs among models. Never throws.
 */
export function validateCatalog(input: unknown): CatalogValidationResult {
  const parsed = catalogSchema.safeParse(input, { reportInput: true });
  const problems: CatalogProblem[] = parsed.success
    ? []
    : parsed.error.issues.flatMap(problemsFromIssue);
  problems.push(...findDuplicates(input));
  if (problems.length > 0 || !parsed.success) {
    problems.sort((a, b) => comparePaths(a.path, b.path));
    return { ok: false, problems };
  }
  return { ok: true, catalog: parsed.data };
}

function problemsFromIssue(issue: z.core.$ZodIssue): CatalogProblem[] {
  const path = formatPath(issue.path);
  if (issue.code === "unrecognized_keys") {
    const allowed = allowedKeysAt(issue.path);
    return issue.keys.map((key) => ({
      path: formatPath([...issue.path, key]),
      message: `unknown key "${key}"; allowed keys: ${allowed.join(", ")}`,
      code: "schema",
    }));
  }
  return [{ path, message: messageFor(issue), code: "schema" }];
}

function messageFor(issue: z.core.$ZodIssue): string {
  const got =
    "input" in issue && issue.input !== undefined ? ` (got ${describe(issue.input)})` : "";
  switch (issue.code) {
    case "invalid_value":
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}${got}`;
    case "invalid_type":
      return issue.input === undefined && issue.expected !== "undefined"
        ? `is required (${issue.expected})`
        : `must be ${issue.expected === "array" ? "an array" : `a ${issue.expected}`}${got}`;
    case "too_small":
      if (issue.origin === "number") {
        return `must be ${issue.inclusive ? "at least" : "greater than"} ${issue.minimum}${got}`;
      }
      if (issue.origin === "string") return "must not be empty";
      return `must have at least ${issue.minimum} item${issue.minimum === 1 ? "" : "s"}`;
    case "invalid_format":
      if (issue.format === "url") return `must be an absolute URL${got}`;
      if (issue.format === "regex" && issue.message.startsWith("must")) {
        return `${issue.message}${got}`;
      }
      return `must match ${issue.pattern ?? issue.format}${got}`;
    default:
      return `${issue.message}${got}`;
  }
}

function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean" || value === null) {
    return String(value);
  }
  return Array.isArray(value) ? "an array" : typeof value;
}

function allowedKeysAt(path: readonly PropertyKey[]): readonly string[] {
  if (path.length === 0) return catalogKeys;
  return allowedKeysByList[String(path[0])] ?? [];
}

function findDuplicates(input: unknown): CatalogProblem[] {
  if (typeof input !== "object" || input === null) return [];
  const { connections, models } = input as Record<string, unknown>;
  return [
    ...duplicatesIn(connections, "connections", "duplicate-connection", (entry) => {
      const { provider, authType } = entry;
      if (typeof provider !== "string" || provider === "") return undefined;
      if (authType !== undefined && typeof authType !== "string") return undefined;
      return {
        key: connectionEntryKey({ provider, authType }),
        label: `(provider "${provider}", ${authType === undefined ? "provider-wide" : `authType "${authType}"`})`,
      };
    }),
    ...duplicatesIn(models, "models", "duplicate-model", (entry) => {
      const { provider, model } = entry;
      if (typeof provider !== "string" || typeof model !== "string") return undefined;
      return {
        key: modelPriceKey({ provider, model }),
        label: `(provider "${provider}", model "${model}")`,
      };
    }),
  ];
}

function duplicatesIn(
  list: unknown,
  listName: string,
  code: CatalogProblemCode,
  keyOf: (entry: Record<string, unknown>) => { key: string; label: string } | undefined,
): CatalogProblem[] {
  if (!Array.isArray(list)) return [];
  const firstIndexByKey = new Map<string, number>();
  const problems: CatalogProblem[] = [];
  list.forEach((entry: unknown, index) => {
    if (typeof entry !== "object" || entry === null) return;
    const identity = keyOf(entry as Record<string, unknown>);
    if (!identity) return;
    const first = firstIndexByKey.get(identity.key);
    if (first === undefined) {
      firstIndexByKey.set(identity.key, index);
      return;
    }
    problems.push({
      path: `${listName}[${index}]`,
      message: `duplicate key ${identity.label}, already defined at ${listName}[${first}] (keys compare case-insensitively)`,
      code,
    });
  });
  return problems;
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (typeof segment === "string" && /^[A-Za-z_$][\w$]*$/.test(segment)) {
      out += out === "" ? segment : `.${segment}`;
    } else out += `[${JSON.stringify(String(segment))}]`;
  }
  return out;
}

// Orders problems as they appear in the file: list, then index (numerically), then field.
function comparePaths(a: string, b: string): number {
  const split = (p: string) => p.split(/[[\].]+/).filter(Boolean);
  const left = split(a);
  const right = split(b);
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const x = left[i]!;
    const y = right[i]!;
    if (x === y) continue;
    const nx = Number(x);
    const ny = Number(y);
    if (Number.isInteger(nx) && Number.isInteger(ny)) return nx - ny;
    return x < y ? -1 : 1;
  }
  return left.length - right.length;
}
