export type { IrFinishReason } from "./finish-reason";
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
} from "./request";
export type { IrResponse } from "./response";
export { type IrStreamError, type IrStreamPart, streamCutError } from "./stream-part";
export { emptyIrUsage, type IrUsage, tokenCount } from "./usage";
