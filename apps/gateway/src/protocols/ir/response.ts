import { z } from "zod";
import { irFinishReasonSchema } from "./finish-reason";
import { irReasoningPartSchema, irTextPartSchema, irToolCallPartSchema } from "./request";
import { irUsageSchema } from "./usage";

/** A complete (non-stream) assistant answer in the hub's shape. */
const irResponseSchema = z.object({
  /** Upstream response id, when it sent one. */
  id: z.string().optional(),
  model: z.string().optional(),
  content: z.array(
    z.discriminatedUnion("type", [irTextPartSchema, irReasoningPartSchema, irToolCallPartSchema]),
  ),
  finishReason: irFinishReasonSchema,
  /** The stop sequence that matched, when `finishReason` is `stop_sequence`. */
  stopSequence: z.string().optional(),
  usage: irUsageSchema.nullable(),
});

/** See {@link irResponseSchema}. */
export type IrResponse = z.infer<typeof irResponseSchema>;
