import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { costOf } from "./cost";
import { SpendLedgerError } from "./errors";
import {
  DEFAULT_MAX_OUTPUT_TOKENS,
  estimateWorstCaseCost,
  INLINE_IMAGE_TOKENS,
  priceWorstCase,
  scanWorstCase,
} from "./worst-case-cost";

const gpt = { inputPerMTok: 2, outputPerMTok: 8, maxOutputTokens: 32_768 };
const sonnet = {
  inputPerMTok: 3,
  outputPerMTok: 15,
  cacheWritePerMTok: 3.75,
  maxOutputTokens: 64_000,
};

const chatBody = {
  model: "gpt-4.1",
  messages: [
    { role: "system", content: "You are terse." },
    {
      role: "user",
      content: "Summarise the attached meeting notes in three bullet points, please.",
    },
  ],
  max_completion_tokens: 500,
};

describe("estimateWorstCaseCost", () => {
  it("counts input as UTF-8 bytes of the JSON body / 3, rounded up, and output from the body", () => {
    const estimate = estimateWorstCaseCost({ body: chatBody, protocol: "openai", price: gpt });
    const bytes = Buffer.byteLength(JSON.stringify(chatBody));
    expect(estimate.inputTokens).toBe(Math.ceil(bytes / 3));
    expect(estimate.outputTokens).toBe(500);
    expect(estimate.costMicroUsd).toBe(
      costOf({ inputTokens: estimate.inputTokens, outputTokens: 500 }, gpt),
    );
  });

  it("over-estimates the input of real text (about 4 bytes per token)", () => {
    const text = "The quarterly report shows revenue growth across all regions. ".repeat(200);
    const estimate = estimateWorstCaseCost({
      body: { messages: [{ role: "user", content: text }], max_tokens: 1 },
      protocol: "openai",
      price: gpt,
    });
    expect(estimate.inputTokens).toBeGreaterThan(text.length / 4);
  });

  it("counts multi-byte text by its bytes", () => {
    const estimate = estimateWorstCaseCost({
      body: { messages: [{ role: "user", content: "価格".repeat(300) }], max_tokens: 1 },
      protocol: "openai",
      price: gpt,
    });
    expect(estimate.inputTokens).toBeGreaterThanOrEqual(600);
  });

  it("prefers max_completion_tokens, then max_tokens, then max_output_tokens (OpenAI)", () => {
    const output = (body: object) =>
      estimateWorstCaseCost({ body, protocol: "openai", price: gpt }).outputTokens;
    expect(output({ max_completion_tokens: 100, max_tokens: 200 })).toBe(100);
    expect(output({ max_tokens: 200 })).toBe(200);
    expect(output({ input: "hi", max_output_tokens: 300 })).toBe(300);
  });

  it("falls back to the model's limit, the operator's limit, then 32 000", () => {
    const body = { messages: [] };
    expect(estimateWorstCaseCost({ body, protocol: "openai", price: gpt }).outputTokens).toBe(
      32_768,
    );
    expect(
      estimateWorstCaseCost({ body, protocol: "openai", price: gpt, maxOutputTokens: 4_096 })
        .outputTokens,
    ).toBe(4_096);
    expect(
      estimateWorstCaseCost({
        body,
        protocol: "openai",
        price: { inputPerMTok: 1, outputPerMTok: 1 },
      }).outputTokens,
    ).toBe(DEFAULT_MAX_OUTPUT_TOKENS);
  });

  it("caps a requested output above the model's limit and multiplies by n", () => {
    const estimate = estimateWorstCaseCost({
      body: { max_tokens: 1_000_000, n: 3 },
      protocol: "openai",
      price: gpt,
    });
    expect(estimate.outputTokens).toBe(3 * 32_768);
  });

  it("counts an inline image as a fixed allowance, not its base64 bytes", () => {
    const image = `data:image/png;base64,${"A".repeat(300_000)}`;
    const openai = estimateWorstCaseCost({
      body: {
        messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: image } }] }],
        max_tokens: 10,
      },
      protocol: "openai",
      price: gpt,
    });
    expect(openai.inputTokens).toBeGreaterThan(INLINE_IMAGE_TOKENS);
    expect(openai.inputTokens).toBeLessThan(INLINE_IMAGE_TOKENS + 100);

    const anthropic = estimateWorstCaseCost({
      body: {
        max_tokens: 10,
        messages: [
          {
            role: "user",
            content: [
              {
                type: "image",
                source: { type: "base64", media_type: "image/jpeg", data: "B".repeat(90_000) },
              },
            ],
          },
        ],
      },
      protocol: "anthropic",
      price: sonnet,
    });
    expect(anthropic.inputTokens).toBeLessThan(INLINE_IMAGE_TOKENS + 100);
  });

  it("prices Anthropic input at the cache-write price when the body asks for caching", () => {
    const body = {
      max_tokens: 1024,
      system: [{ type: "text", text: "Long policy text", cache_control: { type: "ephemeral" } }],
      messages: [{ role: "user", content: "Hi" }],
    };
    const estimate = estimateWorstCaseCost({ body, protocol: "anthropic", price: sonnet });
    expect(estimate.outputTokens).toBe(1024);
    expect(estimate.costMicroUsd).toBe(
      costOf(
        {
          inputTokens: estimate.inputTokens,
          outputTokens: 1024,
          cacheWriteTokens: estimate.inputTokens,
        },
        sonnet,
      ),
    );
  });

  it("rejects an invalid max_tokens or protocol, naming it", () => {
    expect(() =>
      estimateWorstCaseCost({ body: { max_tokens: -5 }, protocol: "anthropic", price: sonnet }),
    ).toThrow(expect.objectContaining({ code: "invalid_argument", path: "body.max_tokens" }));
    expect(() =>
      estimateWorstCaseCost({ body: {}, protocol: "gemini" as "openai", price: sonnet }),
    ).toThrow(expect.objectContaining({ path: "protocol" }));
  });
});

describe("scanWorstCase and priceWorstCase", () => {
  const bodies: [unknown, "openai" | "anthropic"][] = [
    [chatBody, "openai"],
    [{ ...chatBody, max_completion_tokens: undefined, n: 3 }, "openai"],
    [
      {
        max_tokens: 2_000,
        system: [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }],
        messages: [{ role: "user", content: "Hi" }],
      },
      "anthropic",
    ],
  ];

  it("prices one scan at several prices exactly as a full estimate does at each", () => {
    for (const [body, protocol] of bodies) {
      const scan = scanWorstCase({ body, protocol });
      for (const price of [gpt, sonnet, { inputPerMTok: 0.2, outputPerMTok: 0.8 }]) {
        expect(priceWorstCase(scan, price)).toEqual(
          estimateWorstCaseCost({ body, protocol, price }),
        );
        expect(priceWorstCase(scan, price, 100)).toEqual(
          estimateWorstCaseCost({ body, protocol, price, maxOutputTokens: 100 }),
        );
      }
    }
  });

  it("prices the input at a cache read's price when a price list makes that dearer", () => {
    // A list that prices cache reads above plain input is wrong, but a booking must still cover
    // what such a provider bills: every input token read from the cache.
    const scan = scanWorstCase({ body: chatBody, protocol: "openai" });
    const price = { inputPerMTok: 0, outputPerMTok: 0, cachedInputPerMTok: 1 };
    const cost = priceWorstCase(scan, price);
    expect(cost.costMicroUsd).toBe(
      costOf(
        { inputTokens: scan.inputTokens, outputTokens: 0, cachedInputTokens: scan.inputTokens },
        price,
      ),
    );
    expect(cost.costMicroUsd).toBeGreaterThan(0);
  });

  it("prices a scan without the body and still checks the operator limit", () => {
    const scan = scanWorstCase({ body: chatBody, protocol: "openai" });
    const cost = priceWorstCase(scan, gpt);
    expect(cost.outputTokens).toBe(500);
    expect(cost.inputTokens).toBe(scan.inputTokens);
    expect(() => priceWorstCase(scan, gpt, 0)).toThrow(
      expect.objectContaining({ path: "maxOutputTokens" }),
    );
  });
});

describe("estimateWorstCaseCost on a body nested 100 000 deep", () => {
  it("refuses it with invalid_argument instead of overflowing the stack", () => {
    const deep = JSON.parse(`${"[".repeat(100_000)}${"]".repeat(100_000)}`);
    const body = { model: "m", max_tokens: 16, messages: [{ role: "user", content: deep }] };
    let thrown: unknown;
    try {
      estimateWorstCaseCost({
        body,
        protocol: "openai",
        price: { inputPerMTok: 1, outputPerMTok: 1 } as never,
      });
    } catch (error) {
      thrown = error;
    }
    expect(SpendLedgerError.isInstance(thrown)).toBe(true);
    expect((thrown as SpendLedgerError).code).toBe("invalid_argument");
    expect((thrown as SpendLedgerError).path).toBe("body");
  });
});

describe("scanWorstCase on any JSON body", () => {
  /** The scan as its definition states it, one value at a time (the reference). */
  const referenceScan = (body: unknown) => {
    let images = 0;
    let cacheControl = false;
    const json = JSON.stringify(body, function (this: unknown, key, value: unknown) {
      if (key === "cache_control" && value != null) cacheControl = true;
      if (typeof value !== "string") return value;
      const holder = this as { type?: unknown; media_type?: unknown };
      const image =
        (value.startsWith("data:image/") && value.includes(";base64,")) ||
        (key === "data" &&
          holder.type === "base64" &&
          typeof holder.media_type === "string" &&
          holder.media_type.startsWith("image/"));
      if (!image) return value;
      images += 1;
      return "";
    });
    return {
      inputTokens:
        Math.ceil(Buffer.byteLength(json ?? "", "utf8") / 3) + images * INLINE_IMAGE_TOKENS,
      cacheControl,
    };
  };
  // Words that make the text look like what the scan looks for, inside strings and keys.
  const tricky = fc.constantFrom(
    "cache_control",
    '"cache_control',
    'a"cache_control',
    '"cache_control":',
    '{"cache_control":{"type":"ephemeral"}}',
    ',"cache_control":null',
    "base64",
    "data:image/png;base64,iVBORw0KGgo=",
    "data:image/jpeg;base64,",
    "image/png",
    "data",
    "type",
    "media_type",
    "\\",
    '\\"',
    "{",
    ",",
    "null",
  );
  const text = fc.oneof(
    tricky,
    fc.string(),
    fc.tuple(fc.string(), tricky).map(([a, b]) => a + b),
  );
  const key = fc.oneof(tricky, fc.string({ maxLength: 6 }));
  const value = fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: "small" },
      text,
      fc.integer(),
      fc.constant(null),
      fc.boolean(),
      fc.array(tie("node"), { maxLength: 4 }),
      fc.dictionary(key, tie("node"), { maxKeys: 4 }),
      // Blocks shaped like the real ones: Anthropic images and cache marks, OpenAI image URLs.
      fc.record({
        type: fc.constantFrom("base64", "text", "image"),
        media_type: fc.constantFrom("image/png", "application/pdf"),
        data: text,
      }),
      fc.record({
        type: fc.constant("text"),
        text,
        cache_control: fc.oneof(fc.constant(null), fc.record({ type: fc.constant("ephemeral") })),
      }),
      fc.record({
        url: fc.constantFrom("data:image/png;base64,AAAA", "https://example.com/a.png"),
      }),
    ),
  })).node;

  it("counts the same bytes, images and cache marks as the definition", () => {
    fc.assert(
      fc.property(fc.dictionary(key, value, { maxKeys: 5 }), (body) => {
        const scan = scanWorstCase({ body, protocol: "anthropic" });
        const expected = referenceScan(body);
        expect(scan.inputTokens).toBe(expected.inputTokens);
        expect(scan.cacheControl).toBe(expected.cacheControl);
      }),
      { numRuns: 2000 },
    );
  });

  it("reads the same from the text sent upstream as from the body it serialises", () => {
    fc.assert(
      fc.property(fc.dictionary(key, value, { maxKeys: 5 }), (sent) => {
        // The body the client sent differs (no model): the input is read from the sent text.
        const scan = scanWorstCase({
          body: { messages: [] },
          protocol: "anthropic",
          sentText: JSON.stringify(sent),
        });
        const expected = referenceScan(sent);
        expect(scan.inputTokens).toBe(expected.inputTokens);
        expect(scan.cacheControl).toBe(expected.cacheControl);
      }),
      { numRuns: 2000 },
    );
  });

  it("reads the output limit and n from the client's body, the input from the sent text", () => {
    const body = { model: "auto/thrifty", max_tokens: 300, n: 2, messages: [] };
    const sentText = JSON.stringify({ model: "gpt-x", max_tokens: 300, n: 2, messages: [] });
    const scan = scanWorstCase({ body, protocol: "openai", sentText });
    expect(scan).toEqual({
      inputTokens: Math.ceil(Buffer.byteLength(sentText) / 3),
      requestedOutputTokens: 300,
      choices: 2,
      cacheControl: false,
    });
  });
});
