/**
 * Integration ids the fake Copilot API knows: those GitHub's own clients send (`vscode-chat` of
 * VS Code, `jetbrains-chat` that the Copilot language server sends for JetBrains IDEs and every
 * other editor, `copilot-language-server`, `copilot-developer-cli` of the Copilot CLI). The real
 * API refuses any other with a 400 "unknown Copilot-Integration-Id".
 */
export const COPILOT_KNOWN_INTEGRATION_IDS: ReadonlySet<string> = new Set([
  "vscode-chat",
  "jetbrains-chat",
  "copilot-language-server",
  "copilot-developer-cli",
]);

/**
 * The Copilot API's refusal of a request's IDE headers, as the plain-text body of its 400, or null
 * when they pass. `headers` lower-case; `githubToken` is true when the request carries the GitHub
 * token itself (the Copilot CLI's way) rather than a session token from the exchange:
 * - no `Editor-Version` → "bad request: missing Editor-Version header for IDE auth";
 * - a `Copilot-Integration-Id` GitHub has not registered → "bad request: unknown
 *   Copilot-Integration-Id";
 * - none with a GitHub token → "bad request: missing required Copilot-Integration-Id header". A
 *   session token without one passes: VS Code's own extension sends none.
 */
export function copilotIdeHeaderRefusal(
  headers: Readonly<Record<string, string>>,
  githubToken: boolean,
): string | null {
  if (!headers["editor-version"])
    return "bad request: missing Editor-Version header for IDE auth\n";
  const integration = headers["copilot-integration-id"];
  if (!integration) {
    return githubToken ? "bad request: missing required Copilot-Integration-Id header\n" : null;
  }
  return COPILOT_KNOWN_INTEGRATION_IDS.has(integration)
    ? null
    : "bad request: unknown Copilot-Integration-Id\n";
}
