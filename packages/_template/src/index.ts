export type { TemplateErrorCode, TemplateErrorFields } from "./template-error";
export { TemplateError } from "./template-error";
export { windowLabel } from "./window-label";
