export { type IrFinishReason, irFinishReasonSchema } from "./finish-reason";
export {
  emptyIrRequest,
  type IrEffort,
  type IrImagePart,
  type IrMessage,
  type IrPart,
  type IrReasoning,
  type IrReasoningPart,
  type IrRequest,
  type IrResponseFormat,
  type IrTextPart,
  type IrTool,
  type IrToolCallPart,
  type IrToolChoice,
  type IrToolResultPart,
  irRequestSchema,
} from "./request";
export { type IrResponse, irResponseSchema } from "./response";
export { type IrStreamError, type IrStreamPart, streamCutError } from "./stream-part";
export { emptyIrUsage, type IrUsage, irUsageSchema, tokenCount } from "./usage";
