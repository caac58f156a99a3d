import { z } from "zod";
import { ConnectorError, type ConnectorErrorCode } from "../connector-error";

/**
 * The `metadata` of `:loadCodeAssist` and `:onboardUser`: no IDE, no platform, the Gemini plugin
 * (the Code Assist API's own product field, not a client identity).
 */
export const CODE_ASSIST_METADATA = {
  ideType: "IDE_UNSPECIFIED",
  platform: "PLATFORM_UNSPECIFIED",
  pluginType: "GEMINI",
} as const;

/** `cloudaicompanionProject`: a project id, or an object with one (`{id, name}`). */
const projectSchema = z.union([z.string(), z.object({ id: z.string().optional() })]).nullish();

/** A tier as `:loadCodeAssist` lists it (`GeminiUserTier`), the fields read here. */
const tierSchema = z.object({
  id: z.string().optional(),
  isDefault: z.boolean().optional(),
  /** True when the tier needs a Google Cloud project of the user's own. */
  userDefinedCloudaicompanionProject: z.boolean().nullish(),
});

/** The answer of `:loadCodeAssist`, the fields read here. */
export const loadCodeAssistResponseSchema = z.object({
  currentTier: tierSchema.nullish(),
  allowedTiers: z.array(tierSchema).nullish(),
  ineligibleTiers: z
    .array(z.object({ reasonCode: z.string().optional(), tierId: z.string().optional() }))
    .nullish(),
  cloudaicompanionProject: projectSchema,
});

/**
 * The long-running operation `:onboardUser` answers and `GET {base}/{name}` reads back: `done`
 * is omitted while false (proto JSON), `response.cloudaicompanionProject` is the project set up
 * (a failed operation has none).
 */
export const onboardOperationSchema = z.object({
  name: z.string().optional(),
  done: z.boolean().optional(),
  response: z.object({ cloudaicompanionProject: projectSchema }).nullish(),
});

/**
 * True for an upper-case enum name (`FAILED_PRECONDITION`, `DASHER_USER`): a code from an
 * answer that is safe to name in an error, unlike the answer's free text.
 */
export function isEnumName(value: string | undefined): value is string {
  return value !== undefined && /^[A-Z][A-Z0-9_]{0,63}$/.test(value);
}

/** The project id of a `cloudaicompanionProject` value, or null when it names none. */
export function projectIdOf(value: z.infer<typeof projectSchema>): string | null {
  const id = typeof value === "string" ? value : value?.id;
  return typeof id === "string" && id !== "" ? id : null;
}

/** Where and as whom the Code Assist API is called for one connection. */
export interface CodeAssistEndpoint {
  connectionId: string;
  /** `…/v1internal`, no trailing slash. */
  baseUrl: string;
  /** Non-secret headers (User-Agent…); the Bearer token is added per call. */
  headers: Record<string, string>;
}

/** One Code Assist API call: where, with which token, and what to name in errors. */
interface CodeAssistCall {
  connectionId: string;
  url: string;
  method: "GET" | "POST";
  token: string;
  /** Non-secret headers (User-Agent…); the Bearer token is added. */
  headers: Record<string, string>;
  /** JSON body of a POST. */
  body?: unknown;
  /** Code of the error when the call fails. */
  failureCode: ConnectorErrorCode;
  /** Whole call, ms; default 15 000. */
  timeoutMs?: number;
}

/**
 * Calls the Code Assist API and parses its JSON answer with `schema`. Rejects with ConnectorError
 * `failureCode` naming the connection, the URL and the status (`upstreamStatus`, so a 401 can be
 * refreshed once), or why it could not be read; never the token or the body.
 */
export async function callCodeAssist<T>(call: CodeAssistCall, schema: z.ZodType<T>): Promise<T> {
  const fail = (why: string, upstreamStatus?: number): ConnectorError =>
    new ConnectorError({
      code: call.failureCode,
      message: `connection ${call.connectionId}: ${call.url} ${why}`,
      connectionId: call.connectionId,
      ...(upstreamStatus === undefined ? {} : { upstreamStatus }),
    });
  const response = await fetch(call.url, {
    method: call.method,
    headers: {
      ...call.headers,
      ...(call.body === undefined ? {} : { "content-type": "application/json" }),
      accept: "application/json",
      authorization: `Bearer ${call.token}`,
    },
    ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
    signal: AbortSignal.timeout(call.timeoutMs ?? 15_000),
  }).catch(() => null);
  if (!response) throw fail("could not be reached");
  const text = await response.text().catch(() => "");
  if (!response.ok) throw fail(`answered ${response.status}`, response.status);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw fail(`answered ${response.status} without JSON`, response.status);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success)
    throw fail(`answered ${response.status} in an unknown shape`, response.status);
  return parsed.data;
}
