import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ECHO_CREDENTIAL, type FakeUpstream, startFakeUpstream } from "./index";

const SECRET = "sk-ant-oat01-echo-test-secret-0123456789";
let upstream: FakeUpstream;

beforeAll(async () => {
  upstream = await startFakeUpstream({ protocol: "both", name: "echo-test" });
});
afterAll(() => upstream.close());
beforeEach(() => upstream.reset());

function post(path: string, body: unknown, headers: Record<string, string>) {
  return fetch(`${upstream.origin}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

/** Every body chunk as the reader received it. */
async function chunksOf(response: Response): Promise<string[]> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const chunks: string[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return chunks;
    chunks.push(decoder.decode(value, { stream: true }));
  }
}

describe("a fake that echoes the credential it received", () => {
  it("repeats a Bearer token and an x-api-key in a JSON error body and a text body", async () => {
    upstream.script([
      {
        status: 400,
        body: { error: { message: `you sent authorization=Bearer ${ECHO_CREDENTIAL}` } },
      },
      { text: `key ${ECHO_CREDENTIAL}` },
    ]);
    const first = await post(
      "/v1/chat/completions",
      { model: "m" },
      { authorization: `Bearer ${SECRET}` },
    );
    expect(first.status).toBe(400);
    expect(await first.json()).toEqual({
      error: { message: `you sent authorization=Bearer ${SECRET}` },
    });
    const second = await post("/v1/messages", { model: "m" }, { "x-api-key": SECRET });
    expect(await second.text()).toBe(`key ${SECRET}`);
    // The hit log still holds labels only.
    expect(JSON.stringify(upstream.hits)).not.toContain(SECRET);
  });

  it("writes a stream frame carrying the credential in two chunks cut inside it", async () => {
    upstream.script([{ stream: { chunks: [`token ${ECHO_CREDENTIAL} seen`], splitFrames: true } }]);
    const response = await post(
      "/v1/chat/completions",
      { model: "m", stream: true },
      { authorization: `Bearer ${SECRET}` },
    );
    const chunks = await chunksOf(response);
    const whole = chunks.join("");
    expect(whole).toContain(`token ${SECRET} seen`);
    expect(whole).toContain("data: [DONE]");
    // No single chunk holds the whole secret, but one ends inside it.
    expect(chunks.some((chunk) => chunk.includes(SECRET))).toBe(false);
    expect(chunks.some((chunk) => chunk.endsWith(SECRET.slice(0, SECRET.length / 2)))).toBe(true);
  });
});

describe("count_tokens on the Anthropic fake", () => {
  it("answers the scripted count, and 404 while unscripted", async () => {
    const body = { model: "m", messages: [{ role: "user", content: "hi" }] };
    const unscripted = await post("/v1/messages/count_tokens", body, { "x-api-key": SECRET });
    expect(unscripted.status).toBe(404);
    upstream.countTokens(4242);
    const counted = await post("/v1/messages/count_tokens", body, { "x-api-key": SECRET });
    expect(counted.status).toBe(200);
    expect(await counted.json()).toEqual({ input_tokens: 4242 });
    expect(upstream.hits.map((hit) => [hit.path, hit.kind])).toEqual([
      ["/v1/messages/count_tokens", "other"],
      ["/v1/messages/count_tokens", "other"],
    ]);
    expect(upstream.completionHits()).toHaveLength(0);
  });
});
