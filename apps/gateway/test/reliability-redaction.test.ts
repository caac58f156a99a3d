import { badRequest, ECHO_CREDENTIAL, streamFrames } from "@planfirst/fake-upstream";
import { describe, expect, it } from "vitest";
import { STANDARD_FAKES, standardConfig, TEST_ENV } from "./fixtures";
import { chatBody, messagesBody, post, useTestBed } from "./harness";

// An upstream that repeats the credential it received (`…you sent
// authorization=Bearer sk-ant-oat01-…`) must not hand it to the client, on any route, relayed
// verbatim or translated, whole or streamed. Real gateway, real HTTP, fakes on loopback.

const bed = useTestBed(STANDARD_FAKES);
const ECHOED = `you sent authorization=Bearer ${ECHO_CREDENTIAL}`;
const SECRETS = [TEST_ENV.PLAN_TOKEN, TEST_ENV.ROUTER_KEY, TEST_ENV.PREMIUM_KEY];

/** One client route and model, and the fake and protocol that serve it in the standard config. */
interface Pair {
  name: string;
  path: string;
  body: (extra?: Record<string, unknown>) => Record<string, unknown>;
  fake: "plan" | "router";
  connection: string;
  secret: string;
  upstream: "anthropic" | "openai";
}

const PLAN_MODEL = "claude-sonnet-4-5";
const ROUTER_MODEL = "qwen/qwen3-coder";

function responsesBody(model: string) {
  return (extra: Record<string, unknown> = {}) => ({
    model,
    input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "hello" }] }],
    max_output_tokens: 16,
    ...extra,
  });
}

const PAIRS: Pair[] = [
  {
    name: "chat → chat (relayed)",
    path: "/v1/chat/completions",
    body: (extra) => chatBody(ROUTER_MODEL, extra),
    fake: "router",
    connection: "openrouter",
    secret: TEST_ENV.ROUTER_KEY,
    upstream: "openai",
  },
  {
    name: "messages → messages (relayed)",
    path: "/v1/messages",
    body: (extra) => messagesBody(PLAN_MODEL, extra),
    fake: "plan",
    connection: "claude-plan",
    secret: TEST_ENV.PLAN_TOKEN,
    upstream: "anthropic",
  },
  {
    name: "chat → messages (translated)",
    path: "/v1/chat/completions",
    body: (extra) => chatBody(PLAN_MODEL, extra),
    fake: "plan",
    connection: "claude-plan",
    secret: TEST_ENV.PLAN_TOKEN,
    upstream: "anthropic",
  },
  {
    name: "messages → chat (translated)",
    path: "/v1/messages",
    body: (extra) => messagesBody(ROUTER_MODEL, extra),
    fake: "router",
    connection: "openrouter",
    secret: TEST_ENV.ROUTER_KEY,
    upstream: "openai",
  },
  {
    name: "responses → chat (translated)",
    path: "/v1/responses",
    body: responsesBody(ROUTER_MODEL),
    fake: "router",
    connection: "openrouter",
    secret: TEST_ENV.ROUTER_KEY,
    upstream: "openai",
  },
  {
    name: "responses → messages (translated)",
    path: "/v1/responses",
    body: responsesBody(PLAN_MODEL),
    fake: "plan",
    connection: "claude-plan",
    secret: TEST_ENV.PLAN_TOKEN,
    upstream: "anthropic",
  },
];

/** The frame a stream of each route ends with when it ended properly. */
const STREAM_END: Record<string, string> = {
  "/v1/chat/completions": "data: [DONE]",
  "/v1/messages": "event: message_stop",
  "/v1/responses": "event: response.completed",
};

/** No configured secret anywhere in what the client got: body and every header. */
function expectNoSecret(response: Response, text: string) {
  const headers = JSON.stringify([...response.headers.entries()]);
  for (const secret of SECRETS) {
    expect(text).not.toContain(secret);
    expect(headers).not.toContain(secret);
  }
}

async function start() {
  return bed.start({ config: standardConfig(bed.fakes), env: TEST_ENV });
}

describe("a 400 that repeats the credential it received", () => {
  it.each(PAIRS)("reaches the client with [redacted] in its place: $name", async (pair) => {
    const harness = await start();
    bed.fakes[pair.fake].script([badRequest(pair.upstream, ECHOED)]);
    const response = await post(harness.url, pair.path, pair.body());
    const text = await response.text();
    expect(response.status).toBe(400);
    expect(response.headers.get("x-planfirst-connection")).toBe(pair.connection);
    // The fake did echo it: the upstream saw the credential the test expects to be hidden.
    expect(bed.fakes[pair.fake].completionHits()).toHaveLength(1);
    expectNoSecret(response, text);
    expect(text).toContain("you sent authorization=Bearer [redacted]");
  });

  it("keeps the rest of a relayed error body byte for byte", async () => {
    const harness = await start();
    bed.fakes.plan.script([badRequest("anthropic", ECHOED)]);
    const response = await post(harness.url, "/v1/messages", messagesBody(PLAN_MODEL));
    const text = await response.text();
    const parsed = JSON.parse(text) as { error: { type: string; message: string } };
    expect(parsed.error).toEqual({
      type: "invalid_request_error",
      message: "you sent authorization=Bearer [redacted]",
    });
    expect(text).toBe(JSON.stringify(parsed));
  });
});

describe("a 200 whose answer repeats the credential", () => {
  it.each(PAIRS)("answers with [redacted] in its place: $name", async (pair) => {
    const harness = await start();
    bed.fakes[pair.fake].script([{ stream: { chunks: ["the key is ", ECHO_CREDENTIAL, "."] } }]);
    const response = await post(harness.url, pair.path, pair.body());
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(response.headers.get("x-planfirst-connection")).toBe(pair.connection);
    expectNoSecret(response, text);
    expect(text).toContain("the key is [redacted].");
  });
});

describe("a stream that repeats the credential, split across two upstream chunks", () => {
  it.each(PAIRS)("streams [redacted] in its place: $name", async (pair) => {
    const harness = await start();
    bed.fakes[pair.fake].script([
      { stream: { chunks: ["the key is ", `${ECHO_CREDENTIAL} ok`], splitFrames: true } },
    ]);
    const response = await post(harness.url, pair.path, pair.body({ stream: true }));
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(response.headers.get("x-planfirst-connection")).toBe(pair.connection);
    expectNoSecret(response, text);
    expect(text).toContain("[redacted] ok");
    // The stream still ends properly, not with an error frame.
    expect(text).not.toContain("upstream_stream");
    expect(text).toContain(STREAM_END[pair.path]);
  });
});

describe("a relayed stream with no secret in it", () => {
  it("comes out byte for byte as the upstream sent it (messages → messages)", async () => {
    const harness = await start();
    const frames = streamFrames(
      "anthropic",
      PLAN_MODEL,
      ["naïve ", "café ", "✓"],
      { inputTokens: 9, outputTokens: 3 },
      false,
    );
    const sent = [...frames.head, ...frames.content, ...frames.tail].join("");
    bed.fakes.plan.script([{ text: sent, headers: { "content-type": "text/event-stream" } }]);
    const response = await post(
      harness.url,
      "/v1/messages",
      messagesBody(PLAN_MODEL, { stream: true }),
    );
    expect(response.headers.get("x-planfirst-connection")).toBe("claude-plan");
    expect(await response.text()).toBe(sent);
  });

  it("comes out byte for byte as the upstream sent it (chat → chat)", async () => {
    const harness = await start();
    const frames = streamFrames(
      "openai",
      ROUTER_MODEL,
      ["one ", "two"],
      { inputTokens: 9, outputTokens: 2 },
      true,
    );
    const sent = [...frames.head, ...frames.content, ...frames.tail].join("");
    bed.fakes.router.script([{ text: sent, headers: { "content-type": "text/event-stream" } }]);
    const response = await post(
      harness.url,
      "/v1/chat/completions",
      chatBody(ROUTER_MODEL, { stream: true, stream_options: { include_usage: true } }),
    );
    expect(response.headers.get("x-planfirst-connection")).toBe("openrouter");
    expect(await response.text()).toBe(sent);
  });
});
