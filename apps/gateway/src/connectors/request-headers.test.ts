import { describe, expect, it } from "vitest";
import { anthropicRequestHeaders } from "./anthropic/anthropic-connector";
import { baseRequestHeaders, mergeBetas } from "./request-headers";

describe("request headers", () => {
  it("merges beta lists without duplicates, the first list's flags first", () => {
    expect(mergeBetas("oauth-2025-04-20", "a, oauth-2025-04-20,b,a")).toBe("oauth-2025-04-20,a,b");
    expect(mergeBetas(undefined, "a")).toBe("a");
  });

  it("on an Anthropic call the client owns its version, attribution and user agent; its betas join the connection's", () => {
    const headers = anthropicRequestHeaders(
      {
        model: "m",
        stream: true,
        clientHeaders: {
          "anthropic-version": "2023-06-01",
          "anthropic-beta": "claude-code-20250219,team-beta",
          "x-claude-code-session-id": "sess-1",
          "x-app": "cli",
          "user-agent": "claude-cli/2.1.48",
          originator: "codex_cli_rs",
        },
      },
      {
        "Anthropic-Beta": "team-beta",
        "anthropic-version": "2022-01-01",
        "user-agent": "team-proxy/1",
        Authorization: "Bearer from-config",
      },
    );
    expect(headers).toEqual({
      "content-type": "application/json",
      accept: "text/event-stream",
      "user-agent": "claude-cli/2.1.48",
      "anthropic-version": "2023-06-01",
      "anthropic-beta": "team-beta,claude-code-20250219",
      "x-claude-code-session-id": "sess-1",
      "x-app": "cli",
    });
  });

  it("elsewhere the connection's headers win over the client's forwarded ones, and auth is never configured", () => {
    const headers = baseRequestHeaders(
      {
        model: "m",
        stream: false,
        clientHeaders: { originator: "codex_cli_rs", "user-agent": "x" },
      },
      { Originator: "team", "X-Api-Key": "k" },
      ["originator"],
    );
    expect(headers).toEqual({
      "content-type": "application/json",
      accept: "application/json",
      "user-agent": "x",
      originator: "team",
    });
  });
});
