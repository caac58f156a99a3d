import type { IrToolCallPart } from "../ir";

/** A Responses `function_call` or `custom_tool_call` item, as input or as output. */
interface ResponsesCallItem {
  /** `custom_tool_call` for a custom tool; anything else reads as a function call. */
  type?: string | null | undefined;
  id?: string | null | undefined;
  call_id?: string | null | undefined;
  name?: string | null | undefined;
  arguments?: string | null | undefined;
  input?: string | null | undefined;
}

/**
 * The hub tool call of a Responses call item, the same whether a client sent it back as input or
 * an upstream answered with it: a custom tool's `input` or a function's `arguments`, and the
 * item's own id kept so a Responses upstream can be handed it again.
 */
export function decodeCallItem(item: ResponsesCallItem): IrToolCallPart {
  const custom = item.type === "custom_tool_call";
  const part: IrToolCallPart = {
    type: "tool_call",
    kind: custom ? "custom" : "function",
    id: item.call_id ?? "",
    name: item.name ?? "",
    arguments: (custom ? item.input : item.arguments) ?? "",
  };
  if (typeof item.id === "string") part.itemId = item.id;
  return part;
}
