import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createSecretRedactor, REDACTED } from "./secret-redactor";

const TOKEN = "sk-ant-oat01-Zq3xW9vKpL2mN8rT4yU6";

describe("createSecretRedactor", () => {
  it("replaces an echoed credential in a body, in its Bearer and x-api-key forms", () => {
    const redactor = createSecretRedactor([TOKEN, null, ""]);
    const body = `{"error":{"message":"bad header: you sent authorization=Bearer ${TOKEN} and x-api-key: ${TOKEN}"}}`;
    const out = redactor.redact(body);
    expect(out).not.toContain(TOKEN);
    expect(out).toContain(`Bearer ${REDACTED}`);
    expect(out).toContain(`x-api-key: ${REDACTED}`);
  });

  it("catches the JSON-escaped form of a secret with a slash", () => {
    const secret = "ghu_abc/def+ghi==jkl";
    const out = createSecretRedactor([secret]).redact(`{"token":"ghu_abc\\/def+ghi==jkl"}`);
    expect(out).toBe(`{"token":"${REDACTED}"}`);
  });

  it("redacts header values and leaves names alone", () => {
    const headers = createSecretRedactor([TOKEN]).redactHeaders({
      "x-echo": `Bearer ${TOKEN}`,
      "content-type": "application/json",
    });
    expect(headers).toEqual({ "x-echo": `Bearer ${REDACTED}`, "content-type": "application/json" });
  });

  it("holds nothing back from a stream of whole SSE frames", () => {
    const stream = createSecretRedactor([TOKEN]).stream();
    const frame = 'data: {"type":"ping"}\n\n';
    expect(stream.push(frame)).toBe(frame);
    expect(stream.flush()).toBe("");
  });

  it("ignores values too short to be credentials", () => {
    const redactor = createSecretRedactor(["abc"]);
    expect(redactor.empty).toBe(true);
    expect(redactor.redact("abc abc")).toBe("abc abc");
  });

  it("property: random secrets in random text split at random points never leak", () => {
    const secretArb = fc
      .string({
        minLength: 8,
        maxLength: 60,
        unit: fc.constantFrom(..."abcdefXYZ0123456789-_./+="),
      })
      .filter((s) => !s.includes("\n"));
    fc.assert(
      fc.property(
        fc.array(secretArb, { minLength: 1, maxLength: 3 }),
        fc.array(fc.string({ maxLength: 40 }), { minLength: 1, maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        (secrets, fillers, cuts) => {
          let text = "";
          fillers.forEach((filler, i) => {
            text += filler + (secrets[i % secrets.length] ?? "");
          });
          const redactor = createSecretRedactor(secrets);
          const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
          const stream = redactor.stream();
          let out = "";
          let from = 0;
          for (const point of points) {
            out += stream.push(text.slice(from, point));
            from = point;
          }
          out += stream.push(text.slice(from));
          out += stream.flush();
          for (const secret of secrets) expect(out).not.toContain(secret);
          // Streaming gives exactly what redacting the whole text at once gives.
          expect(out).toBe(redactor.redact(text));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
