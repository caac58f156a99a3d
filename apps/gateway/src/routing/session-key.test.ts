import { describe, expect, it } from "vitest";
import type { ConversationOpening } from "../protocols";
import {
  isSessionHash,
  OPENING_MAX_CHARS,
  type SessionHeaders,
  type SessionKeyInput,
  sessionHash,
  sessionKeyOf,
} from "./session-key";

const OPENING: ConversationOpening = {
  system: "You are a coding agent.",
  firstUserMessage: "fix the bug",
  continued: true,
};

function input(
  headers: SessionHeaders | undefined,
  body: Record<string, unknown> = {},
  opening: ConversationOpening | null = OPENING,
  clientId = "team-a",
): SessionKeyInput {
  return { headers, body, clientId, opening: () => opening };
}

describe("session key", () => {
  it("gives a named session the same hash on every request, however many sessions came between", () => {
    const hashOf = (id: string, clientId = "team-a") =>
      sessionKeyOf(input({ "x-session-affinity": id }, {}, OPENING, clientId))?.hash;
    const first = hashOf("conversation-1");
    expect(first).toBe(sessionHash("team-a", "affinity", "conversation-1"));
    // More sessions than the remembered hashes hold, then the first again.
    for (let i = 0; i < 5_000; i++) {
      expect(hashOf(`conversation-${i}`)).toBe(
        sessionHash("team-a", "affinity", `conversation-${i}`),
      );
    }
    expect(hashOf("conversation-1")).toBe(first);
    // Another key's session of the same id is another session; a long id is hashed as well.
    expect(hashOf("conversation-1", "team-b")).not.toBe(first);
    const long = "x".repeat(10_000);
    expect(hashOf(long)).toBe(sessionHash("team-a", "affinity", long));
  });

  it("takes the sources in order: Claude Code header, session_id or prompt_cache_key, metadata.user_id, x-session-affinity, the opening", () => {
    const all = {
      "x-claude-code-session-id": "cc",
      session_id: "codex",
      "x-session-affinity": "any",
    } as const;
    const body = { prompt_cache_key: "pck", metadata: { user_id: "u" } };
    expect(sessionKeyOf(input(all, body))?.source).toBe("x-claude-code-session-id");
    const { "x-claude-code-session-id": _cc, ...noClaude } = all;
    expect(sessionKeyOf(input(noClaude, body))?.source).toBe("session_id");
    const { session_id: _sid, ...affinityOnly } = noClaude;
    expect(sessionKeyOf(input(affinityOnly, body))?.source).toBe("prompt_cache_key");
    expect(sessionKeyOf(input(affinityOnly, { metadata: { user_id: "u" } }))?.source).toBe(
      "metadata.user_id",
    );
    expect(sessionKeyOf(input(affinityOnly, {}))?.source).toBe("x-session-affinity");
    expect(sessionKeyOf(input(undefined, {}))?.source).toBe("conversation");
  });

  it("a Codex session_id header and the same value as prompt_cache_key are one session", () => {
    expect(sessionKeyOf(input({ session_id: "conv-1" }))?.hash).toBe(
      sessionKeyOf(input(undefined, { prompt_cache_key: "conv-1" }))?.hash,
    );
  });

  it("only the hash leaves it: 16 hex characters, different per client key, stable per value", () => {
    const key = sessionKeyOf(input({ "x-session-affinity": "job-7" }));
    expect(key?.hash).toMatch(/^[0-9a-f]{16}$/);
    expect(JSON.stringify(key)).not.toContain("job-7");
    expect(sessionKeyOf(input({ "x-session-affinity": "job-7" }))?.hash).toBe(key?.hash);
    const other = sessionKeyOf(input({ "x-session-affinity": "job-7" }, {}, OPENING, "team-b"));
    expect(other?.hash).not.toBe(key?.hash);
    expect(isSessionHash(key!.hash)).toBe(true);
    expect(isSessionHash("job-7")).toBe(false);
  });

  it("the fallback hashes the opening with the bound, and marks a first turn as opening a conversation", () => {
    let asked = 0;
    const key = sessionKeyOf({
      headers: undefined,
      body: {},
      clientId: "k",
      opening(maxChars) {
        asked = maxChars;
        return { ...OPENING, continued: false };
      },
    });
    expect(asked).toBe(OPENING_MAX_CHARS);
    expect(key).toEqual({
      hash: sessionHash("k", "conversation", `${OPENING.system}\u0000${OPENING.firstUserMessage}`),
      source: "conversation",
      opening: true,
    });
    expect(sessionKeyOf(input(undefined))?.opening).toBe(false);
  });

  it("named sessions never ask for the opening; nothing to derive from is no session; blank values do not count", () => {
    const key = sessionKeyOf({
      headers: { "x-session-affinity": "s" },
      body: {},
      clientId: "k",
      opening: () => {
        throw new Error("the opening was read although the client named its session");
      },
    });
    expect(key?.source).toBe("x-session-affinity");
    expect(sessionKeyOf(input({ session_id: "  " }, { prompt_cache_key: "" }, null))).toBeNull();
  });
});
