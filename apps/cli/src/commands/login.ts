import { mkdirSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import type { StoredCredential } from "@planfirst/gateway";
import type { Command } from "commander";
import { loadConfigOrThrow, locateConfig } from "../config-file";
import type { CliContext } from "../context";
import { CliError } from "../errors";
import { EXIT_CODES } from "../exit-codes";
import { loadGateway } from "../gateway-module";
import { writeOut } from "../output";

/** The official clients whose saved logins `planfirst login import` reads. */
const LOGIN_SOURCES = ["codex", "claude", "copilot", "gemini"] as const;

/** One of {@link LOGIN_SOURCES}. */
type LoginSource = (typeof LOGIN_SOURCES)[number];

/** Options of `planfirst login import`. */
interface LoginImportOptions {
  name?: string;
  store?: string;
  config?: string;
}

/** What an imported login file gave: the credential and a line describing it (no secret). */
interface ImportedLogin {
  credential: StoredCredential;
  /** File read, as shown to the operator. */
  file: string;
  /** Non-secret facts for the summary line (`account …`, `expires …`). */
  facts: string[];
}

type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const text = (value: unknown): string | null =>
  typeof value === "string" && value.trim() !== "" ? value : null;

const epochMs = (value: unknown): number | null =>
  typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.round(value) : null;

/** Registers `planfirst login import codex|claude|copilot|gemini`. */
export function registerLoginCommand(program: Command, context: CliContext): void {
  const login = program
    .command("login")
    .description("bring plan logins into planfirst's credential store");
  login
    .command("import")
    .description(
      "copy an official CLI's saved login (Codex, Claude Code, Copilot, Gemini CLI) into the store; prints no token",
    )
    .argument("<source>", `whose login to import: ${LOGIN_SOURCES.join(", ")}`)
    .option(
      "--name <login>",
      "name to store it under, used as credential: { login: NAME } (default: the source)",
    )
    .option("--store <file>", "SQLite file to write (default: the config's storage.path)")
    .option(
      "-c, --config <file>",
      "config whose storage.path is the store (default ./planfirst.yaml)",
    )
    .action(async (source: string, options: LoginImportOptions) => {
      await runLoginImport(context, source, options);
    });
}

async function runLoginImport(context: CliContext, source: string, options: LoginImportOptions) {
  if (!(LOGIN_SOURCES as readonly string[]).includes(source)) {
    throw new CliError({
      code: "usage",
      message: `unknown login source "${source}"; choose one of ${LOGIN_SOURCES.join(", ")}`,
    });
  }
  const home = text(context.io.env.HOME) ?? homedir();
  const imported = await readLogin(source as LoginSource, home, context);
  const name = options.name ?? source;
  const storePath = await storeFile(context, options);
  const { createSqliteCredentialPersistence } = await loadGateway();
  mkdirSync(dirname(storePath), { recursive: true });
  const persistence = createSqliteCredentialPersistence(storePath);
  try {
    await persistence.write(`login:${name}`, imported.credential);
  } finally {
    persistence.close();
  }
  const facts = imported.facts.length > 0 ? ` (${imported.facts.join(", ")})` : "";
  writeOut(
    context,
    `imported the ${source} login from ${imported.file} into ${storePath} as login:${name}${facts}\nuse it in a connection with: credential: { login: ${name} }`,
  );
  context.exitCode = EXIT_CODES.ok;
}

async function storeFile(context: CliContext, options: LoginImportOptions): Promise<string> {
  if (options.store) return resolve(context.io.cwd, options.store);
  const config = await loadConfigOrThrow(locateConfig(options.config, context.io.cwd));
  if (config.storage.driver !== "sqlite") {
    throw new CliError({
      code: "usage",
      message: `the config's storage driver is ${config.storage.driver}; pass --store FILE to choose a SQLite file`,
    });
  }
  return resolve(context.io.cwd, config.storage.path);
}

async function readJson(path: string, shown: string, hint: string): Promise<Json> {
  let raw: string;
  try {
    raw = await readFile(path, "utf8");
  } catch {
    throw new CliError({
      code: "file_unreadable",
      message: `${shown}: not found or unreadable; ${hint}`,
      exitCode: EXIT_CODES.problems,
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    parsed = undefined;
  }
  // Never echo the file: it holds tokens.
  if (!isRecord(parsed)) {
    throw new CliError({
      code: "file_unreadable",
      message: `${shown}: not a JSON object`,
      exitCode: EXIT_CODES.problems,
    });
  }
  return parsed;
}

function missing(shown: string, field: string): CliError {
  return new CliError({
    code: "file_unreadable",
    message: `${shown}: no ${field} in the file; log in again with the official client`,
    exitCode: EXIT_CODES.problems,
  });
}

async function readLogin(
  source: LoginSource,
  home: string,
  context: CliContext,
): Promise<ImportedLogin> {
  const now = context.io.now();
  const { jwtExpiryMs } = await loadGateway();
  const env = context.io.env;
  if (source === "codex") {
    // The Codex CLI keeps its login in $CODEX_HOME/auth.json, ~/.codex by default.
    const dir = text(env.CODEX_HOME) ?? join(home, ".codex");
    const path = join(dir, "auth.json");
    const shown = text(env.CODEX_HOME) ? path : "~/.codex/auth.json";
    const file = await readJson(path, shown, "log in with `codex login` first");
    const tokens = isRecord(file.tokens) ? file.tokens : null;
    const accessToken = text(tokens?.access_token);
    const refreshToken = text(tokens?.refresh_token);
    const accountId = text(tokens?.account_id);
    if (!refreshToken)
      throw missing(shown, "tokens.refresh_token (an API-key login cannot be imported)");
    if (!accountId) throw missing(shown, "tokens.account_id");
    const expiresAtMs = accessToken ? jwtExpiryMs(accessToken) : null;
    return {
      file: shown,
      credential: {
        provider: "codex",
        accessToken,
        refreshToken,
        expiresAtMs,
        fields: { accountId },
        updatedAtMs: now,
      },
      facts: [`ChatGPT account ${accountId}`, expiryFact(expiresAtMs)],
    };
  }
  if (source === "claude") {
    const dir = text(env.CLAUDE_CONFIG_DIR) ?? join(home, ".claude");
    const path = join(dir, ".credentials.json");
    const shown = text(env.CLAUDE_CONFIG_DIR) ? path : "~/.claude/.credentials.json";
    const file = await readJson(path, shown, "log in with `claude` (/login) first");
    const oauth = isRecord(file.claudeAiOauth) ? file.claudeAiOauth : null;
    const accessToken = text(oauth?.accessToken);
    const refreshToken = text(oauth?.refreshToken);
    if (!accessToken && !refreshToken)
      throw missing(shown, "claudeAiOauth.accessToken or refreshToken");
    const expiresAtMs = epochMs(oauth?.expiresAt);
    const fields: Record<string, string> = {};
    const subscription = text(oauth?.subscriptionType);
    if (subscription) fields.subscriptionType = subscription;
    if (Array.isArray(oauth?.scopes)) {
      fields.scopes = oauth.scopes.filter((scope) => typeof scope === "string").join(" ");
    }
    return {
      file: shown,
      credential: {
        provider: "claude",
        accessToken,
        refreshToken,
        expiresAtMs,
        fields,
        updatedAtMs: now,
      },
      facts: [...(subscription ? [`plan ${subscription}`] : []), expiryFact(expiresAtMs)],
    };
  }
  if (source === "copilot") {
    // GitHub's Copilot editors keep the GitHub OAuth token in apps.json (newer) or hosts.json,
    // keyed by host ("github.com" or "github.com:<app id>").
    const dir = join(text(env.XDG_CONFIG_HOME) ?? join(home, ".config"), "github-copilot");
    for (const name of ["apps.json", "hosts.json"]) {
      const path = join(dir, name);
      const shown = text(env.XDG_CONFIG_HOME) ? path : `~/.config/github-copilot/${name}`;
      let file: Json;
      try {
        file = await readJson(path, shown, "");
      } catch {
        continue;
      }
      for (const [host, entry] of Object.entries(file)) {
        if (!host.startsWith("github.com") || !isRecord(entry)) continue;
        const githubToken = text(entry.oauth_token);
        if (!githubToken) continue;
        const fields: Record<string, string> = {};
        const user = text(entry.user);
        if (user) fields.githubUser = user;
        return {
          file: shown,
          credential: {
            provider: "github-copilot",
            accessToken: null,
            refreshToken: githubToken,
            expiresAtMs: null,
            fields,
            updatedAtMs: now,
          },
          facts: user ? [`GitHub user ${user}`] : [],
        };
      }
    }
    throw new CliError({
      code: "file_unreadable",
      message:
        "no GitHub token for github.com in ~/.config/github-copilot/apps.json or hosts.json; sign in to Copilot in your editor first",
      exitCode: EXIT_CODES.problems,
    });
  }
  const path = join(home, ".gemini", "oauth_creds.json");
  const shown = "~/.gemini/oauth_creds.json";
  const file = await readJson(path, shown, "log in with `gemini` (Login with Google) first");
  const refreshToken = text(file.refresh_token);
  if (!refreshToken) throw missing(shown, "refresh_token");
  const expiresAtMs = epochMs(file.expiry_date);
  return {
    file: shown,
    credential: {
      provider: "gemini-code-assist",
      accessToken: text(file.access_token),
      refreshToken,
      expiresAtMs,
      fields: {},
      updatedAtMs: now,
    },
    facts: [expiryFact(expiresAtMs)],
  };
}

function expiryFact(expiresAtMs: number | null): string {
  return expiresAtMs === null
    ? "access token expiry unknown: refreshed on first use"
    : `access token valid until ${new Date(expiresAtMs).toISOString()}`;
}
