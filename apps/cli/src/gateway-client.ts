import { CliError } from "./errors";

/** Where a running gateway is and how to authenticate to it. */
interface GatewayTarget {
  /** Base URL, e.g. `http://127.0.0.1:4141` (a trailing slash is ignored). */
  url: string;
  /** Client key sent as `Authorization: Bearer`; never printed. */
  apiKey: string | undefined;
  /** Give up after this many milliseconds; default 10 000. */
  timeoutMs?: number;
  /** Extra request headers (a session header for `/v1/ladder`); never credentials. */
  headers?: Readonly<Record<string, string>>;
}

/** Default gateway URL: `PLANFIRST_URL`, else the gateway's default address. */
export function defaultGatewayUrl(env: NodeJS.ProcessEnv): string {
  return env.PLANFIRST_URL || "http://127.0.0.1:4141";
}

/**
 * GETs `path` from the gateway and returns the parsed JSON body. No answer (refused, timed out
 * after `timeoutMs`, DNS) → `CliError` `gateway_unreachable` (exit 3); a 404 → `model_unknown`
 * with the gateway's own message (exit 1); a 401 → `gateway_error` naming the key variable;
 * any other error status → `gateway_error` (exit 1) with the gateway's message, and its
 * problems (path: reason), one per detail line. The key is sent, never echoed.
 */
export function getGatewayJson(target: GatewayTarget, path: string): Promise<unknown> {
  return requestGatewayJson(target, "GET", path);
}

/** POSTs to `path` (no body) and returns the parsed JSON answer, with the errors of {@link getGatewayJson}. */
export function postGatewayJson(target: GatewayTarget, path: string): Promise<unknown> {
  return requestGatewayJson(target, "POST", path);
}

async function requestGatewayJson(
  target: GatewayTarget,
  method: "GET" | "POST",
  path: string,
): Promise<unknown> {
  const base = target.url.replace(/\/+$/, "");
  let url: URL;
  try {
    url = new URL(`${base}${path}`);
  } catch (error) {
    throw new CliError({
      code: "usage",
      message: `--url ${target.url} is not a URL`,
      cause: error,
    });
  }
  const headers: Record<string, string> = { ...target.headers, accept: "application/json" };
  if (target.apiKey) headers.authorization = `Bearer ${target.apiKey}`;
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers,
      signal: AbortSignal.timeout(target.timeoutMs ?? 10_000),
    });
  } catch (error) {
    throw new CliError({
      code: "gateway_unreachable",
      message: `gateway at ${base} is unreachable (${describeFetchError(error)})`,
      cause: error,
    });
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = text === "" ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!response.ok) {
    const message = errorMessageOf(body) ?? `HTTP ${response.status}`;
    if (response.status === 401) {
      throw new CliError({
        code: "gateway_error",
        message: `gateway at ${base} refused the client key: ${message}`,
        details: ["set PLANFIRST_API_KEY (or name the variable with --api-key-env)"],
      });
    }
    throw new CliError({
      code: response.status === 404 ? "model_unknown" : "gateway_error",
      message,
      details: detailsOf(body),
    });
  }
  if (body === undefined) {
    throw new CliError({
      code: "gateway_error",
      message: `gateway at ${base} answered ${path} without JSON`,
    });
  }
  return body;
}

function describeFetchError(error: unknown): string {
  if (error instanceof Error && error.name === "TimeoutError") return "timed out";
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}

function errorMessageOf(body: unknown): string | undefined {
  const error = (body as { error?: { message?: unknown } } | undefined)?.error;
  return typeof error?.message === "string" ? error.message : undefined;
}

function detailsOf(body: unknown): string[] {
  const error = (body as { error?: { categories?: unknown; problems?: unknown } } | undefined)
    ?.error;
  if (Array.isArray(error?.categories)) {
    return [`defined categories: ${error.categories.join(", ")}`];
  }
  if (Array.isArray(error?.problems)) {
    return error.problems.map((problem: { path?: unknown; message?: unknown }) => {
      const where =
        typeof problem.path === "string" && problem.path !== "" ? problem.path : "(root)";
      return `${where}: ${String(problem.message)}`;
    });
  }
  return [];
}
