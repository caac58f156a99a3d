import { describe, expect, it } from "vitest";
import { anthropicKeyConnection, routerConnection } from "./fixtures";
import { chatBody, messagesBody, post, useTestBed } from "./harness";

const bed = useTestBed(
  { router: "openai", claude: "anthropic" },
  {
    gateway: (fakes) => ({
      config: {
        connections: [routerConnection(fakes.router.url), anthropicKeyConnection(fakes.claude.url)],
      },
      env: { ROUTER_KEY: "sk-or-v1-input-test-key-0001", ANTHROPIC_KEY: "sk-ant-api03-input-0002" },
    }),
  },
);

const CHAT = "/v1/chat/completions";
const MESSAGES = "/v1/messages";
const deep = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

async function refused(path: string, body: unknown | string) {
  const hitsBefore = bed.fakes.router.hits.length + bed.fakes.claude.hits.length;
  const response = await fetch(`${bed.harness.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const json = (await response.json()) as Record<string, unknown>;
  // Nothing invalid ever reaches an upstream.
  expect(bed.fakes.router.hits.length + bed.fakes.claude.hits.length).toBe(hitsBefore);
  return { status: response.status, json, text: JSON.stringify(json) };
}

describe("client bodies are validated at the edge", () => {
  it.each([
    ["messages is a string", { model: "qwen/qwen3-coder", messages: "hi" }, "messages"],
    ["messages holds numbers", { model: "qwen/qwen3-coder", messages: [1, 2] }, "messages[0]"],
    ["messages is missing", { model: "qwen/qwen3-coder" }, "messages"],
    ["max_tokens is negative", chatBody("qwen/qwen3-coder", { max_tokens: -5 }), "max_tokens"],
    [
      "a role is unknown",
      { model: "qwen/qwen3-coder", messages: [{ role: "wizard", content: "hi" }] },
      "messages[0].role",
    ],
  ])("chat completions: %s is a 400 naming %s", async (_what, body, path) => {
    const answer = await refused(CHAT, body);
    expect(answer.status).toBe(400);
    expect((answer.json as { error: { type: string } }).error.type).toBe("invalid_request_error");
    expect(answer.text).toContain(path);
  });

  it.each([
    ["max_tokens is negative", messagesBody("claude-haiku-4-5", { max_tokens: -5 }), "max_tokens"],
    [
      "content is a number",
      { model: "claude-haiku-4-5", max_tokens: 8, messages: [{ role: "user", content: 7 }] },
      "messages[0].content",
    ],
  ])("messages: %s is a 400 in the Anthropic shape naming %s", async (_what, body, path) => {
    const answer = await refused(MESSAGES, body);
    expect(answer.status).toBe(400);
    expect(answer.json.type).toBe("error");
    expect(answer.text).toContain(path);
  });

  it.each([CHAT, MESSAGES])(
    "%s: JSON nested 100 000 deep is a 400, not a stack overflow",
    async (path) => {
      const model = path === CHAT ? "qwen/qwen3-coder" : "claude-haiku-4-5";
      const text = `{"model":"${model}","max_tokens":8,"messages":[{"role":"user","content":"hi"}],"metadata_x":${deep(100_000)}}`;
      const answer = await refused(path, text);
      expect(answer.status).toBe(400);
      expect(answer.text).toContain("nests deeper than 64 levels");
    },
  );

  it("accepts nesting up to the limit and serves it", async () => {
    const response = await post(
      bed.harness.url,
      CHAT,
      chatBody("qwen/qwen3-coder", { x_extra: JSON.parse(deep(60)) }),
    );
    expect(response.status).toBe(200);
  });
});
