import type { ConnectorCall } from "./connector";
import { identityHeaders } from "./connector";

const AUTH_HEADERS = ["authorization", "x-api-key"];

/**
 * Headers every upstream call starts from: JSON content type, `accept` by stream mode, the
 * identity headers ({@link identityHeaders}, `forwarded` names included), then the config's extra
 * headers (lower-cased) with any auth header removed: auth is the connector's alone.
 */
export function baseRequestHeaders(
  call: ConnectorCall,
  configHeaders: Readonly<Record<string, string>> | undefined,
  forwarded: readonly string[] = [],
): Record<string, string> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: call.stream ? "text/event-stream" : "application/json",
    ...identityHeaders(call, forwarded),
  };
  if (configHeaders) {
    for (const [name, value] of Object.entries(configHeaders)) headers[name.toLowerCase()] = value;
  }
  for (const name of AUTH_HEADERS) delete headers[name];
  return headers;
}

/** Adds `flag` to a comma-separated `anthropic-beta` value unless it is already there. */
export function mergeBetaFlag(existing: string | undefined, flag: string): string {
  if (!existing) return flag;
  const flags = existing.split(",").map((value) => value.trim());
  return flags.includes(flag) ? existing : `${existing},${flag}`;
}
