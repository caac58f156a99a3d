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

/**
 * Comma-separated `anthropic-beta` flags of both lists, `first`'s before `then`'s, each once and
 * trimmed: the connection's betas merged with the client's, or a flag the connection needs added.
 */
export function mergeBetas(first: string | undefined, then: string): string {
  const flags: string[] = [];
  for (const list of [first ?? "", then]) {
    for (const raw of list.split(",")) {
      const flag = raw.trim();
      if (flag !== "" && !flags.includes(flag)) flags.push(flag);
    }
  }
  return flags.join(",");
}
