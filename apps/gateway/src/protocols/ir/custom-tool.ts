import { isRecord } from "./guards";
import type { IrTool } from "./request";
import type { IrResponse } from "./response";
import type { IrStreamPart } from "./stream-part";

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
function unwrapCustomInput(args: string): string {
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

/**
 * Gives back custom tool calls that travelled as wrapped function calls (to a protocol without
 * freeform tools): calls to a tool in `names` become `kind: "custom"` with the raw input.
 */
export function restoreCustomCalls(response: IrResponse, names: ReadonlySet<string>): IrResponse {
  if (names.size === 0) return response;
  return {
    ...response,
    content: response.content.map((part) =>
      part.type === "tool_call" && part.kind === "function" && names.has(part.name)
        ? { ...part, kind: "custom", arguments: unwrapCustomInput(part.arguments) }
        : part,
    ),
  };
}

/**
 * The stream form of {@link restoreCustomCalls}: a wrapped call's argument deltas are held
 * until the call ends (the raw input can only be read from the whole JSON), then sent as one
 * delta of raw input.
 */
export function createCustomCallRestorer(
  names: ReadonlySet<string>,
): (part: IrStreamPart) => IrStreamPart[] {
  const held = new Map<number, string>();
  return (part) => {
    if (names.size === 0) return [part];
    switch (part.type) {
      case "tool-call-start":
        if (part.kind !== "function" || !names.has(part.name)) return [part];
        held.set(part.callIndex, "");
        return [{ ...part, kind: "custom" }];
      case "tool-call-delta": {
        const soFar = held.get(part.callIndex);
        if (soFar === undefined) return [part];
        held.set(part.callIndex, soFar + part.delta);
        return [];
      }
      case "tool-call-end": {
        const args = held.get(part.callIndex);
        if (args === undefined) return [part];
        held.delete(part.callIndex);
        const input = unwrapCustomInput(args);
        return input === ""
          ? [part]
          : [{ type: "tool-call-delta", callIndex: part.callIndex, delta: input }, part];
      }
      default:
        return [part];
    }
  };
}
