import { bodyObject } from "../connector";
import { ConnectorError } from "../connector-error";

/**
 * The body of `:loadCodeAssist`: no IDE, no platform, the Gemini plugin (the Code Assist API's
 * own product field, not a client identity).
 */
export const LOAD_CODE_ASSIST_BODY = {
  metadata: { ideType: "IDE_UNSPECIFIED", platform: "PLATFORM_UNSPECIFIED", pluginType: "GEMINI" },
} as const;

/** What `:loadCodeAssist` says about a login: its Code Assist project and tier. */
export interface CodeAssistProject {
  project: string;
  /** `currentTier.id` (`free-tier`, `standard-tier`, `legacy-tier`…), when sent. */
  tierId: string | null;
}

/**
 * Reads a `:loadCodeAssist` answer: `cloudaicompanionProject` (a string, or an object with an
 * `id`) and `currentTier.id`; null when it names no project (a login never onboarded).
 */
export function readLoadCodeAssist(payload: unknown): CodeAssistProject | null {
  const body = bodyObject(payload);
  const raw = body?.cloudaicompanionProject;
  const project = typeof raw === "string" ? raw : bodyObject(raw)?.id;
  if (typeof project !== "string" || project === "") return null;
  const tier = bodyObject(body?.currentTier)?.id;
  return { project, tierId: typeof tier === "string" ? tier : null };
}

/**
 * Asks `{baseUrl}:loadCodeAssist` for the login's project. Rejects with ConnectorError
 * `endpoint_discovery_failed` naming the connection and the status, never the token or body.
 */
export async function loadCodeAssist(options: {
  connectionId: string;
  baseUrl: string;
  token: string;
  headers: Record<string, string>;
  timeoutMs?: number;
}): Promise<CodeAssistProject> {
  const url = `${options.baseUrl}:loadCodeAssist`;
  const response = await fetch(url, {
    method: "POST",
    headers: {
      ...options.headers,
      "content-type": "application/json",
      accept: "application/json",
      authorization: `Bearer ${options.token}`,
    },
    body: JSON.stringify(LOAD_CODE_ASSIST_BODY),
    signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
  }).catch(() => null);
  const text = response ? await response.text().catch(() => "") : "";
  const found = response?.ok ? readLoadCodeAssist(text) : null;
  if (found) return found;
  const why = !response
    ? "could not be reached"
    : response.ok
      ? "named no cloudaicompanionProject (set up the login with the Gemini CLI once, or store a project)"
      : `answered ${response.status}`;
  throw new ConnectorError({
    code: "endpoint_discovery_failed",
    message: `connection ${options.connectionId}: ${url} ${why}`,
    connectionId: options.connectionId,
    ...(response ? { upstreamStatus: response.status } : {}),
  });
}
