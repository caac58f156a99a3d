import { describe, expect, it } from "vitest";
import { GatewayError } from "../errors";
import { validateCompletionBody } from "./validate-body";

/** The message of the error `body` is refused with, at a 16-byte string limit. */
function refusal(body: unknown): string {
  try {
    validateCompletionBody("anthropic-messages", body as Record<string, unknown>, 16);
  } catch (error) {
    expect(GatewayError.isInstance(error)).toBe(true);
    return (error as GatewayError).message;
  }
  return expect.fail("the body was accepted");
}

describe("validateCompletionBody's walk of the body", () => {
  it("names the path of a string over the limit, however deep in arrays and objects", () => {
    const body = {
      model: "claude-haiku-4-5",
      max_tokens: 8,
      messages: [
        { role: "user", content: "short" },
        { role: "user", content: [{ type: "text", text: "x".repeat(17) }] },
      ],
    };
    expect(refusal(body)).toBe("messages[1].content[0].text: is longer than 16 bytes");
  });

  it("visits every key a parsed body holds, __proto__ included", () => {
    const body = JSON.parse(
      `{"model":"claude-haiku-4-5","max_tokens":8,"__proto__":{"note":"${"y".repeat(17)}"}}`,
    );
    expect(refusal(body)).toBe("__proto__.note: is longer than 16 bytes");
  });

  it("names the first value too deep", () => {
    let deep: unknown = "end";
    for (let level = 0; level < 70; level++) deep = { inner: deep };
    const message = refusal({ model: "claude-haiku-4-5", max_tokens: 8, metadata_x: deep });
    expect(message).toBe(`metadata_x${".inner".repeat(63)}: nests deeper than 64 levels`);
  });
});
