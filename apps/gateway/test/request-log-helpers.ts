import { existsSync, readFileSync } from "node:fs";
import { expect } from "vitest";
import { requestLogPathFor } from "../src/observability/request-log/request-log-sqlite";
import type { RequestRecord } from "../src/observability/request-log/request-record";
import { TEST_ENV } from "./fixtures";
import { type Harness, waitFor } from "./harness";

/** The keys of the team config: an admin key and a client key limited to the cheap connection. */
export const TEAM_ENV = { ...TEST_ENV, INTERN_KEY: "pf-intern-secret-value-444" };
export const TEAM_KEY = { authorization: `Bearer ${TEST_ENV.CLIENT_KEY}` };
export const INTERN_KEY = { authorization: `Bearer ${TEAM_ENV.INTERN_KEY}` };

/** `server` of a gateway with the team's two keys. */
export const TEAM_SERVER = {
  apiKeys: [
    { key: "env:CLIENT_KEY", id: "team", role: "admin" as const },
    { key: "env:INTERN_KEY", id: "intern", connections: ["openrouter"] },
  ],
};

/** A prompt no record may ever contain. */
export const SAMPLE_PROMPT = "a sample prompt that must never be logged: violet-heron-7741";

/** Reads `GET /v1/requests` (JSON) with `query` and the team key unless `headers` says else. */
export async function readRequests(
  harness: Harness,
  query: Record<string, string> = {},
  headers: Record<string, string> = TEAM_KEY,
): Promise<RequestRecord[]> {
  const response = await fetch(`${harness.url}/v1/requests?${new URLSearchParams(query)}`, {
    headers,
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: RequestRecord[] }).data;
}

/** Waits until the log holds `count` records matching `query` (a stream's ends as it closes). */
export async function waitForRequests(
  harness: Harness,
  count: number,
  query: Record<string, string> = {},
): Promise<RequestRecord[]> {
  let records: RequestRecord[] = [];
  await waitFor(
    async () => {
      records = await readRequests(harness, query);
      return records.length >= count;
    },
    { what: `${count} request records` },
  );
  return records;
}

/** The bytes of the SQLite request log of a harness (its WAL included), as latin1 text. */
export function sqliteLogBytes(harness: Harness): string {
  const path = requestLogPathFor(harness.server.gateway.deps.config.storage.path);
  expect(existsSync(path)).toBe(true);
  return [path, `${path}-wal`]
    .filter((file) => existsSync(file))
    .map((file) => readFileSync(file).toString("latin1"))
    .join("\n");
}

/** Fails when `text` holds a configured secret or the sample prompt. */
export function expectNothingSecret(text: string): void {
  for (const [name, value] of Object.entries(TEAM_ENV)) {
    expect(text.includes(value), `${name} found in the stored log`).toBe(false);
  }
  expect(text.includes(SAMPLE_PROMPT), "the sample prompt found in the stored log").toBe(false);
}
