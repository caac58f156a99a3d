import { z } from "zod";
import type { IrUsage } from "../ir";
import { isRecord } from "../ir/guards";
import { tokenCount } from "../ir/usage";

/**
 * One part of a Gemini `Content` as an upstream sends it: text (a thought when `thought` is
 * true), a whole function call, or something the hub does not carry (inline data, executable
 * code), which is ignored. `thoughtSignature` is Gemini's opaque proof of its reasoning.
 */
const geminiPartSchema = z
  .object({
    text: z.string().optional(),
    thought: z.boolean().optional(),
    thoughtSignature: z.string().optional(),
    functionCall: z
      .object({
        id: z.string().optional(),
        name: z.string(),
        args: z.record(z.string(), z.unknown()).optional(),
      })
      .optional(),
  })
  .loose();

/** One candidate answer: its content, and why it stopped once it has. */
const geminiCandidateSchema = z
  .object({
    content: z
      .object({ role: z.string().optional(), parts: z.array(geminiPartSchema).optional() })
      .loose()
      .optional(),
    finishReason: z.string().optional(),
    index: z.number().optional(),
  })
  .loose();

/**
 * A Gemini `GenerateContentResponse` (a whole answer, or one stream chunk). `usageMetadata` is
 * cumulative in a stream; `promptFeedback.blockReason` is set when the prompt itself was blocked
 * and no candidate came.
 */
export const geminiResponseSchema = z
  .object({
    candidates: z.array(geminiCandidateSchema).optional(),
    usageMetadata: z.unknown().optional(),
    modelVersion: z.string().optional(),
    responseId: z.string().optional(),
    promptFeedback: z.object({ blockReason: z.string().optional() }).loose().optional(),
  })
  .loose();

/**
 * The Gemini answer inside a Code Assist envelope (`{"response": {...}, "traceId": ...}`), or
 * the body itself when it is a plain Gemini API answer; null when it is neither an object.
 */
export function unwrapCodeAssist(body: unknown): Record<string, unknown> | null {
  if (!isRecord(body)) return null;
  return isRecord(body.response) ? body.response : body;
}

/**
 * Hub usage of a Gemini `usageMetadata`, or null when absent. `promptTokenCount` includes
 * `cachedContentTokenCount`; `candidatesTokenCount` excludes `thoughtsTokenCount`, so output is
 * their sum and reasoning the thoughts alone.
 */
export function usageFromGemini(usage: unknown): IrUsage | null {
  if (!isRecord(usage)) return null;
  const thoughts = tokenCount(usage.thoughtsTokenCount);
  return {
    inputTokens: tokenCount(usage.promptTokenCount),
    outputTokens: tokenCount(usage.candidatesTokenCount) + thoughts,
    cachedInputTokens: tokenCount(usage.cachedContentTokenCount),
    cacheWriteTokens: 0,
    reasoningTokens: thoughts,
  };
}
