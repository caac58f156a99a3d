import type { Codec } from "../codec";
import { ProtocolError } from "../protocol-error";
import { decodeGeminiResponse } from "./decode-response";
import { decodeGeminiStream } from "./decode-stream";
import { encodeGeminiRequest } from "./encode-request";
import { unwrapCodeAssist, usageFromGemini } from "./gemini-api";

const FINISH_REASON_SET = /"finishReason":\s*"/;

function upstreamOnly(what: string): never {
  throw new ProtocolError({
    code: "unsupported_field",
    field: "protocol",
    message: `gemini is spoken to upstreams only; planfirst has no Gemini client route to ${what}`,
  });
}

/**
 * The Gemini codec, upstream side: Gemini Code Assist `:generateContent` and
 * `:streamGenerateContent?alt=sse` (the Gemini API body inside the Code Assist envelope); config
 * name `gemini`. Clients speak OpenAI or Anthropic to planfirst, so the client half refuses.
 */
export const geminiCodec = {
  protocol: "gemini",
  configName: "gemini",
  decodeRequest: (_body) => upstreamOnly("decode a request"),
  encodeRequest: encodeGeminiRequest,
  decodeResponse: decodeGeminiResponse,
  encodeResponse: () => upstreamOnly("encode an answer"),
  decodeStream: decodeGeminiStream,
  encodeStream: () => upstreamOnly("encode a stream"),
  relay: {
    tracks: (_event, data) =>
      data.includes('"usageMetadata"') || data.includes('"error"') || FINISH_REASON_SET.test(data),
    isTerminal: (_event, data) => FINISH_REASON_SET.test(data),
    terminator: [],
    errorFrames: (error) => [
      {
        data: JSON.stringify({ error: { code: 500, status: error.code, message: error.message } }),
      },
    ],
  },
  responseUsage: (body) => usageFromGemini(unwrapCodeAssist(body)?.usageMetadata),
  freeformTools: false,
  forwarding: null,
  client: null,
} satisfies Codec<"gemini", "gemini">;
