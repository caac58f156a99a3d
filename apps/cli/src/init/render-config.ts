import { parse as parseYaml } from "yaml";
import type { ConnectionPreset } from "./connection-presets";

/** Everything `planfirst init` asks for. */
export interface InitAnswers {
  connections: readonly ConnectionPreset[];
  host: string;
  port: number;
  storage: "sqlite" | "memory" | "redis";
  /** Redis URL, used when `storage` is `redis`. */
  redisUrl: string;
  /** USD per budget window for the cheap rung; 0 disables the rung. */
  cheapBudgetUsd: number;
  /** USD per budget window for the premium rung; 0 disables the rung. */
  premiumBudgetUsd: number;
  budgetWindow: "day" | "week" | "month";
  /** Environment variable holding the client key; empty = no key (loopback only). */
  apiKeyEnv: string;
}

// Plain YAML scalars for ids and model names that YAML reads back as the same string; anything
// else (numbers such as 1.5, booleans, colons) is written as a JSON string, which YAML reads
// unchanged.
function scalar(value: string): string {
  const plain =
    /^[A-Za-z0-9][A-Za-z0-9._/@-]*$/.test(value) &&
    !/^(true|false|null|yes|no|on|off|y|n|~)$/i.test(value) &&
    parseYaml(value) === value;
  return plain ? value : JSON.stringify(value);
}

function flowList(values: readonly string[]): string {
  return `[${values.map(scalar).join(", ")}]`;
}

/**
 * The commented `planfirst.yaml` for `answers`: valid for the gateway's config schema, every
 * section explained in comments, no secret (credentials are `env:NAME` references).
 */
export function renderConfig(answers: InitAnswers): string {
  const lines: string[] = [
    "# planfirst gateway configuration (YAML; JSON works too).",
    "# Check it before trusting it with money:  planfirst check --config <this file>",
    "# Run the gateway:                         planfirst serve --config <this file>",
    "",
    "server:",
    "  # A host other than loopback needs at least one client key.",
    `  host: ${scalar(answers.host)}`,
    `  port: ${answers.port}`,
  ];
  if (answers.apiKeyEnv) {
    lines.push(
      '  # Client keys; clients send one as "Authorization: Bearer KEY" or "x-api-key: KEY".',
      `  apiKeys: [env:${answers.apiKeyEnv}]`,
    );
  } else {
    lines.push(
      "  # No client keys: the gateway only binds to a loopback address.",
      "  apiKeys: []",
    );
  }
  lines.push(
    "",
    "# One store for quota state, cooldowns and spend: sqlite (default) | memory | redis.",
    "storage:",
    `  driver: ${answers.storage}`,
  );
  if (answers.storage === "redis") lines.push(`  url: ${scalar(answers.redisUrl)}`);
  else if (answers.storage === "sqlite") lines.push("  path: .planfirst/state.db");

  lines.push(
    "",
    "# Upstream accounts, tried plan first: subscription, keyless, free, cheap, premium.",
    "# Credentials are env:NAME references; a connection whose variable is unset is disabled.",
    "connections:",
  );
  if (answers.connections.length === 0) lines.push("  []");
  for (const preset of answers.connections) {
    lines.push(
      `  # ${preset.note}`,
      `  - id: ${scalar(preset.id)}`,
      `    provider: ${scalar(preset.provider)}`,
      `    authType: ${scalar(preset.authType)}`,
      `    protocol: ${preset.protocol}`,
    );
    if (preset.baseUrl) lines.push(`    baseUrl: ${scalar(preset.baseUrl)}`);
    if (preset.credentialEnv) lines.push(`    credential: env:${preset.credentialEnv}`);
    else if (preset.credentialLogin) {
      lines.push(`    credential: { login: ${scalar(preset.credentialLogin)} }`);
    }
    lines.push(`    models: ${flowList(preset.models)}`);
  }

  const codingModels = [...new Set(answers.connections.map((preset) => preset.models[0]!))];
  lines.push(
    "",
    "# Your own billing entries and prices; they replace the bundled catalog's entry with the same key.",
    "# Models without a price are treated as premium. A plan whose overage is not hard-stop stays out",
    "# of auto/subscription; if your account cannot bill past the plan (extra usage turned off), say so:",
    "#   connections:",
    "#     - { provider: claude, authType: oauth, billing: subscription, overage: hard-stop,",
    '#         reason: "extra usage is off on my account", sources: ["https://…"], reviewed: YYYY-MM-DD }',
    "catalog:",
    "  connections: []",
    "  models: []",
    "",
    "# Categories narrow auto ids: auto/coding:subscription, auto/coding:thrifty. Globs allowed (*, ?).",
  );
  if (codingModels.length > 0) lines.push("categories:", `  coding: ${flowList(codingModels)}`);
  else lines.push("categories: {}");
  lines.push(
    "",
    "# The ladder: when a plan window counts as spent, and what the paid rungs may cost.",
    "subscriptionLadder:",
    "  # Leave a plan at or below this remaining percent; come back above the re-entry floor.",
    "  exitCutoffPercent: 2",
    "  reentryMinRemainingPercent: 5",
    "  # USD per budget window for the paid rungs; 0 disables a rung.",
    `  rungBudgetUsd: { cheap: ${answers.cheapBudgetUsd}, premium: ${answers.premiumBudgetUsd} }`,
    "  # day | week | month, UTC.",
    `  budgetWindow: ${answers.budgetWindow}`,
    "",
  );
  return lines.join("\n");
}
