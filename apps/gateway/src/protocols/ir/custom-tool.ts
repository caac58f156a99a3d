import { isRecord } from "./guards";
import type { IrTool } from "./request";

/**
 * The JSON schema of the function a freeform (custom) tool becomes for a protocol without
 * freeform tools: one string property, `input`, holding the raw text the tool takes.
 */
export const CUSTOM_TOOL_PARAMETERS: Record<string, unknown> = {
  type: "object",
  properties: { input: { type: "string", description: "The raw input text of this tool." } },
  required: ["input"],
  additionalProperties: false,
};

/**
 * The description of a custom tool carried as a function: its own description, plus its
 * grammar definition when it had one (the grammar is no longer enforced, so the model is told).
 */
export function customToolDescription(
  tool: Extract<IrTool, { kind: "custom" }>,
): string | undefined {
  const format = tool.format;
  if (!isRecord(format) || format.type !== "grammar") return tool.description;
  const syntax = typeof format.syntax === "string" ? format.syntax : "grammar";
  const definition = typeof format.definition === "string" ? format.definition : "";
  const head = tool.description ? `${tool.description}\n\n` : "";
  return `${head}The input must follow this ${syntax} grammar:\n${definition}`;
}

/** Function-call arguments that carry a custom tool's raw input. */
export function wrapCustomInput(input: string): string {
  return JSON.stringify({ input });
}

/** The raw input of a custom tool from function-call arguments; the arguments as they are if not wrapped. */
export function unwrapCustomInput(args: string): string {
  try {
    const value: unknown = JSON.parse(args);
    if (isRecord(value) && typeof value.input === "string") return value.input;
  } catch {
    // Not JSON: the model wrote the input bare.
  }
  return args;
}

/** Names of the request's custom tools, so answers can call them back as custom tools. */
export function customToolNames(tools: readonly IrTool[] | undefined): ReadonlySet<string> {
  const names = new Set<string>();
  for (const tool of tools ?? []) if (tool.kind === "custom") names.add(tool.name);
  return names;
}
