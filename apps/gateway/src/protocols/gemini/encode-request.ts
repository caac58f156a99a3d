import type { Encoded, EncodeRequestOptions } from "../codec";
import { invalidField, refuseField } from "../degrade-policy";
import type { IrMessage, IrRequest, IrTextPart, IrTool } from "../ir";
import { CUSTOM_TOOL_PARAMETERS, customToolDescription, wrapCustomInput } from "../ir/custom-tool";
import { reasoningFieldName, unique } from "../ir/dropped";
import type { Json } from "../ir/guards";
import { isRecord } from "../ir/guards";
import { budgetFromEffort } from "../ir/reasoning";
import { ProtocolError } from "../protocol-error";

const TARGET = "gemini";

/**
 * Writes a Gemini Code Assist body for a hub request: the envelope `{model, request}` whose
 * `request` is a Gemini API `GenerateContentRequest` (`contents`, `systemInstruction`, `tools`,
 * `toolConfig`, `generationConfig`). The connector adds the envelope's `project`. See
 * {@link Codec.encodeRequest}.
 */
export function encodeGeminiRequest(ir: IrRequest, options: EncodeRequestOptions): Encoded<Json> {
  const dropped = [...ir.dropped];
  if (ir.previousResponseId !== undefined)
    throw refuseField("previous-response-id", "previous_response_id", TARGET);
  if (ir.choices !== undefined && ir.choices > 1) throw refuseField("n", "n", TARGET);
  const request: Json = {};
  // System turns ahead of the conversation join the system instruction; later ones keep their
  // place as user text (Gemini has no system role inside `contents`).
  const lead = ir.messages.findIndex((message) => message.role !== "system");
  const leading = lead === -1 ? ir.messages : ir.messages.slice(0, lead);
  const systemParts = [
    ...ir.system,
    ...leading.flatMap((m) => m.content.filter((p): p is IrTextPart => p.type === "text")),
  ];
  request.contents = encodeContents(ir, leading.length, dropped);
  const system = joinText(systemParts);
  if (system !== "") request.systemInstruction = { role: "user", parts: [{ text: system }] };
  if (systemParts.some((p) => p.cacheHint)) dropped.push("cache_control");

  if (ir.tools.length > 0) {
    request.tools = [
      { functionDeclarations: ir.tools.map((tool, i) => encodeTool(tool, i, dropped)) },
    ];
    if (ir.toolChoice) request.toolConfig = { functionCallingConfig: toolChoice(ir.toolChoice) };
    if (ir.parallelToolCalls !== undefined) dropped.push("parallel_tool_calls");
  }

  const generation: Json = {};
  if (ir.maxOutputTokens !== undefined) generation.maxOutputTokens = ir.maxOutputTokens;
  if (ir.temperature !== undefined) generation.temperature = ir.temperature;
  if (ir.topP !== undefined) generation.topP = ir.topP;
  if (ir.topK !== undefined) generation.topK = ir.topK;
  if (ir.stop && ir.stop.length > 0) {
    // Gemini takes at most five; dropping one would let the answer run past it.
    if (ir.stop.length > 5) {
      throw new ProtocolError({
        code: "unsupported_field",
        field: "stop",
        message: "a Gemini upstream takes at most 5 stop sequences",
      });
    }
    generation.stopSequences = ir.stop;
  }
  if (ir.responseFormat?.type === "json_object") generation.responseMimeType = "application/json";
  else if (ir.responseFormat?.type === "json_schema") {
    generation.responseMimeType = "application/json";
    generation.responseJsonSchema = ir.responseFormat.schema;
  }
  const thinking = thinkingConfig(ir, dropped);
  if (thinking) generation.thinkingConfig = thinking;
  if (Object.keys(generation).length > 0) request.generationConfig = generation;

  if (ir.user !== undefined) dropped.push("user");
  if (ir.metadata !== undefined) dropped.push("metadata");
  if (ir.store !== undefined) dropped.push("store");
  if (ir.reasoning?.summary !== undefined) dropped.push("reasoning.summary");
  if (ir.includeEncryptedReasoning) dropped.push("include");
  if (ir.contextManagement !== undefined) dropped.push("context_management");
  return { body: { model: options.model, request }, dropped: unique(dropped) };
}

function joinText(parts: readonly IrTextPart[]): string {
  return parts.map((p) => p.text).join("\n\n");
}

/**
 * Gemini thinking: an effort becomes a thinking budget (the hub's low/medium/high budgets), a
 * budget goes as is, adaptive is the dynamic budget (-1); thoughts are asked for so the client
 * sees them. `disabled` is dropped rather than sent as budget 0, which Gemini Pro models refuse.
 */
function thinkingConfig(ir: IrRequest, dropped: string[]): Json | null {
  const reasoning = ir.reasoning;
  if (!reasoning) return null;
  const field = ir.source === "anthropic-messages" ? "thinking" : "reasoning_effort";
  if (reasoning.disabled || reasoning.effort === "none") {
    dropped.push(field);
    return null;
  }
  if (reasoning.budgetTokens !== undefined)
    return { thinkingBudget: reasoning.budgetTokens, includeThoughts: true };
  if (reasoning.effort !== undefined)
    return { thinkingBudget: budgetFromEffort(reasoning.effort), includeThoughts: true };
  if (reasoning.adaptive) return { thinkingBudget: -1, includeThoughts: true };
  return null;
}

function toolChoice(choice: NonNullable<IrRequest["toolChoice"]>): Json {
  switch (choice.type) {
    case "auto":
      return { mode: "AUTO" };
    case "none":
      return { mode: "NONE" };
    case "required":
      return { mode: "ANY" };
    case "tool":
      return { mode: "ANY", allowedFunctionNames: [choice.name] };
  }
}

function encodeTool(tool: IrTool, index: number, dropped: string[]): Json {
  if (tool.kind === "custom") {
    if (tool.format && tool.format.type !== "text") dropped.push(`tools[${index}].format`);
    const fn: Json = { name: tool.name, parametersJsonSchema: CUSTOM_TOOL_PARAMETERS };
    const description = customToolDescription(tool);
    if (description !== undefined) fn.description = description;
    return fn;
  }
  if (tool.cacheHint) dropped.push("cache_control");
  if (tool.strict !== undefined) dropped.push(`tools[${index}].strict`);
  // `parametersJsonSchema` takes JSON Schema as clients write it (`parameters` is an OpenAPI subset).
  const fn: Json = { name: tool.name, parametersJsonSchema: tool.parameters };
  if (tool.description !== undefined) fn.description = tool.description;
  return fn;
}

/**
 * The conversation as Gemini `contents`: user turns `user`, assistant turns `model`, tool
 * results `functionResponse` parts naming the function their call named. System turns inside
 * the conversation keep their place as user text. Consecutive turns of one role are merged.
 */
function encodeContents(ir: IrRequest, skip: number, dropped: string[]): Json[] {
  const callNames = new Map<string, string>();
  for (const message of ir.messages) {
    for (const part of message.content)
      if (part.type === "tool_call") callNames.set(part.id, part.name);
  }
  const contents: Json[] = [];
  const push = (role: "user" | "model", parts: Json[]) => {
    if (parts.length === 0) return;
    const last = contents.at(-1);
    if (last && last.role === role) (last.parts as Json[]).push(...parts);
    else contents.push({ role, parts });
  };
  ir.messages.forEach((message, m) => {
    if (m < skip) return;
    if (message.content.some((p) => p.type === "text" && p.cacheHint === true))
      dropped.push("cache_control");
    push(
      message.role === "assistant" ? "model" : "user",
      encodeParts(message, m, callNames, ir, dropped),
    );
  });
  return contents;
}

function encodeParts(
  message: IrMessage,
  m: number,
  callNames: ReadonlyMap<string, string>,
  ir: IrRequest,
  dropped: string[],
): Json[] {
  const parts: Json[] = [];
  const trailing: Json[] = [];
  message.content.forEach((part, p) => {
    switch (part.type) {
      case "text":
        if (part.text !== "") parts.push({ text: part.text });
        return;
      case "image":
        parts.push(imagePart(part, `messages[${m}].content[${p}]`));
        return;
      case "reasoning":
        // Another protocol's reasoning proof means nothing to Gemini.
        dropped.push(reasoningFieldName(ir.source));
        return;
      case "tool_call": {
        const args =
          part.kind === "custom" ? wrapCustomInput(part.arguments) : part.arguments || "{}";
        parts.push({ functionCall: { name: part.name, args: parseArgs(args, m, p) } });
        return;
      }
      case "tool_result": {
        const name = callNames.get(part.callId);
        if (name === undefined) {
          throw invalidField(
            `messages[${m}].content[${p}]`,
            `tool result for call ${part.callId} whose call is not in the conversation (Gemini names the function, not the call)`,
          );
        }
        const text = part.content
          .filter((c): c is IrTextPart => c.type === "text")
          .map((c) => c.text)
          .join("");
        parts.push({
          functionResponse: { name, response: part.isError ? { error: text } : { output: text } },
        });
        part.content.forEach((c, i) => {
          if (c.type === "image")
            trailing.push(imagePart(c, `messages[${m}].content[${p}].content[${i}]`));
        });
        return;
      }
    }
  });
  return [...parts, ...trailing];
}

function imagePart(
  part: Extract<IrMessage["content"][number], { type: "image" }>,
  path: string,
): Json {
  if (part.source.kind === "base64")
    return { inlineData: { mimeType: part.source.mediaType, data: part.source.data } };
  throw new ProtocolError({
    code: "unsupported_field",
    field: path,
    message: "a Gemini upstream takes images inline (base64 data), not by URL",
  });
}

function parseArgs(text: string, m: number, p: number): Json {
  try {
    const value: unknown = JSON.parse(text);
    if (isRecord(value)) return value;
  } catch {
    // Falls through to the refusal below.
  }
  throw invalidField(
    `messages[${m}].content[${p}].arguments`,
    "tool call arguments must be a JSON object for a Gemini upstream",
  );
}
