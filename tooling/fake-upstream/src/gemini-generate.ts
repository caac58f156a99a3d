import { randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import type { CodeAssistAccount } from "./code-assist-account";
import { json, record, reply } from "./gemini-http";
import { rpcError } from "./google-rpc";

/** Go-style seconds with nanosecond decimals, as RetryInfo writes them (`0.976066617s`). */
function retryDelay(ms: number): string {
  return `${(ms / 1000).toFixed(9).replace(/0+$/, "").replace(/\.$/, "")}s`;
}

/** The knobs of the Gemini Code Assist fake that decide how generation answers. */
export interface GenerationKnobs {
  /**
   * When set, generation answers 429 `RESOURCE_EXHAUSTED` with ErrorInfo `QUOTA_EXHAUSTED` and
   * `quotaResetTimeStamp` at this epoch ms.
   */
  exhaustedUntilMs: number | null;
  /** When set, generation answers 429 `RATE_LIMIT_EXCEEDED` with this RetryInfo delay, ms. */
  rateLimitedForMs: number | null;
  /** When true, generation answers 403 `VALIDATION_REQUIRED`. */
  validationRequired: boolean;
  /** Text of the answer; default "Hello from Gemini.". */
  answerText: string;
  /** When set, the answer is this one function call instead of text. */
  functionCall: { name: string; args: Record<string, unknown> } | null;
}

/** What {@link generate} reads: the fake's knobs, the account's Code Assist state, the clock. */
interface GenerationState {
  fake: GenerationKnobs;
  account: CodeAssistAccount;
  now: () => number;
}

/**
 * Answers `:generateContent`, or with `stream` `:streamGenerateContent?alt=sse`: the account's
 * refusal of a body without its project, 400 without `request.contents`, the refusals the fake is
 * set to (403 `VALIDATION_REQUIRED`, 429 `QUOTA_EXHAUSTED` or `RATE_LIMIT_EXCEEDED`), else the
 * answer wrapped as `{"response": …, "traceId": …}`, streamed as SSE frames ending in CRLF CRLF.
 */
export function generate(
  response: ServerResponse,
  body: Record<string, unknown>,
  stream: boolean,
  state: GenerationState,
) {
  const { fake, account, now } = state;
  const model = typeof body.model === "string" ? body.model : "";
  const refusal = account.generationRefusal(body.project);
  if (refusal) return reply(response, refusal);
  if (!Array.isArray(record(body.request).contents))
    return json(response, 400, rpcError(400, "INVALID_ARGUMENT", "request.contents is required"));
  if (fake.validationRequired) {
    return json(
      response,
      403,
      rpcError(403, "PERMISSION_DENIED", "Verify your account to continue.", [
        {
          "@type": "type.googleapis.com/google.rpc.ErrorInfo",
          reason: "VALIDATION_REQUIRED",
          domain: "cloudcode-pa.googleapis.com",
        },
        {
          "@type": "type.googleapis.com/google.rpc.Help",
          links: [{ description: "Verify", url: "https://accounts.google.com/" }],
        },
      ]),
    );
  }
  if (fake.exhaustedUntilMs !== null && fake.exhaustedUntilMs > now()) {
    const delayMs = fake.exhaustedUntilMs - now();
    return json(
      response,
      429,
      rpcError(
        429,
        "RESOURCE_EXHAUSTED",
        `You have exhausted your capacity on this model. Your quota will reset after ${Math.ceil(delayMs / 1000)}s.`,
        [
          {
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            reason: "QUOTA_EXHAUSTED",
            domain: "cloudcode-pa.googleapis.com",
            metadata: {
              uiMessage: "true",
              model,
              quotaResetDelay: retryDelay(delayMs),
              quotaResetTimeStamp: new Date(fake.exhaustedUntilMs)
                .toISOString()
                .replace(/\.\d{3}Z$/, "Z"),
            },
          },
          {
            "@type": "type.googleapis.com/google.rpc.RetryInfo",
            retryDelay: retryDelay(delayMs),
          },
        ],
      ),
    );
  }
  if (fake.rateLimitedForMs !== null) {
    return json(
      response,
      429,
      rpcError(429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota).", [
        {
          "@type": "type.googleapis.com/google.rpc.ErrorInfo",
          reason: "RATE_LIMIT_EXCEEDED",
          domain: "cloudcode-pa.googleapis.com",
          metadata: { model, quotaResetDelay: retryDelay(fake.rateLimitedForMs) },
        },
        {
          "@type": "type.googleapis.com/google.rpc.RetryInfo",
          retryDelay: retryDelay(fake.rateLimitedForMs),
        },
      ]),
    );
  }
  const responseId = `fake-${randomBytes(8).toString("hex")}`;
  const traceId = randomBytes(8).toString("hex");
  const usage = (candidates: number) => ({
    promptTokenCount: 21,
    candidatesTokenCount: candidates,
    thoughtsTokenCount: 5,
    totalTokenCount: 26 + candidates,
  });
  const wrap = (candidate: Record<string, unknown>, candidates: number) => ({
    response: {
      candidates: [candidate],
      usageMetadata: usage(candidates),
      modelVersion: model,
      responseId,
    },
    traceId,
  });
  const call = fake.functionCall;
  const parts = call ? [{ functionCall: call }] : [{ text: fake.answerText }];
  if (!stream) {
    return json(
      response,
      200,
      wrap({ content: { role: "model", parts }, finishReason: "STOP" }, 7),
    );
  }
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const frames: unknown[] = [
    wrap({ content: { role: "model", parts: [{ text: "Weighing it up.", thought: true }] } }, 0),
  ];
  if (call) frames.push(wrap({ content: { role: "model", parts }, finishReason: "STOP" }, 7));
  else {
    const text = fake.answerText;
    const half = Math.ceil(text.length / 2);
    frames.push(wrap({ content: { role: "model", parts: [{ text: text.slice(0, half) }] } }, 3));
    frames.push(
      wrap(
        { content: { role: "model", parts: [{ text: text.slice(half) }] }, finishReason: "STOP" },
        7,
      ),
    );
  }
  for (const frame of frames) response.write(`data: ${JSON.stringify(frame)}\r\n\r\n`);
  response.end();
}
