import { ProtocolError } from "./protocol-error";

/** What the hub does with a field the target protocol cannot carry as is. */
type DegradeAction = "translate" | "drop" | "refuse";

/** One row of the degrade policy. */
interface DegradeRule {
  /** Stable key the codecs use to apply the rule. */
  key: string;
  /** The client field(s), in the source protocol's words. */
  field: string;
  /** Protocols whose clients send the field (names as in `protocols/registry.ts`). */
  from: readonly string[];
  /** Protocols the rule applies to as a target (names as in `protocols/registry.ts`). */
  to: readonly string[];
  action: DegradeAction;
  /** What it becomes (translate) or why it is dropped or refused. */
  why: string;
}

const ALL: readonly string[] = ["openai-chat", "anthropic-messages", "openai-responses"];
const OPENAI: readonly string[] = ["openai-chat", "openai-responses"];
const ANTHROPIC: readonly string[] = ["anthropic-messages"];
const RESPONSES: readonly string[] = ["openai-responses"];
const NOT_RESPONSES: readonly string[] = ["openai-chat", "anthropic-messages"];

/**
 * The cross-protocol degrade policy, as data: every field a codec translates, drops (a hint that
 * cannot change the answer; listed in `dropped` so the gateway can show it in
 * `x-planfirst-dropped`) or refuses (dropping it would change the answer; `ProtocolError` naming
 * the field). Same-protocol traffic is relayed untouched and never consults it.
 */
export const DEGRADE_POLICY = [
  {
    key: "effort",
    field: "output_config.effort / reasoning_effort / reasoning.effort",
    from: ALL,
    to: ALL,
    action: "translate",
    why: "one effort level (low, medium, high; Anthropic max → high, OpenAI minimal → low) in each protocol's own field",
  },
  {
    key: "thinking-budget",
    field: "thinking {type: enabled, budget_tokens}",
    from: ANTHROPIC,
    to: OPENAI,
    action: "translate",
    why: "reasoning effort by budget: < 4096 low, < 16384 medium, else high",
  },
  {
    key: "effort-to-budget",
    field: "reasoning_effort / reasoning.effort",
    from: OPENAI,
    to: ANTHROPIC,
    action: "translate",
    why: "thinking {type: enabled, budget_tokens} (low 2048, medium 8192, high 24576), capped below max_tokens; dropped when under 1024 tokens, with temperature/top_p or a forced tool, or mid tool loop (Anthropic refuses thinking there)",
  },
  {
    key: "thinking-adaptive",
    field: "thinking {type: adaptive}",
    from: ANTHROPIC,
    to: OPENAI,
    action: "drop",
    why: "the model decides how much to think; the target's default does the same",
  },
  {
    key: "thinking-disabled",
    field: "thinking {type: disabled} / reasoning_effort none",
    from: ALL,
    to: ALL,
    action: "translate",
    why: "no reasoning (effort none, or no thinking block)",
  },
  {
    key: "system-messages",
    field: "system role inside messages / system & developer messages / instructions",
    from: ALL,
    to: ALL,
    action: "translate",
    why: "kept in place as system (chat) or developer (Responses) messages; hoisted into system, in order, for Anthropic",
  },
  {
    key: "cache-control",
    field: "cache_control (system, messages, tools)",
    from: ANTHROPIC,
    to: OPENAI,
    action: "drop",
    why: "a prompt-cache hint; OpenAI caches by prefix on its own",
  },
  {
    key: "context-management",
    field: "context_management (clear-thinking / clear-tool-uses edits)",
    from: ANTHROPIC,
    to: OPENAI,
    action: "drop",
    why: "server-side pruning of old context; the full history is sent instead",
  },
  {
    key: "prior-reasoning",
    field: "thinking / redacted_thinking blocks, reasoning items in history",
    from: ALL,
    to: ALL,
    action: "drop",
    why: "signed or encrypted reasoning is only valid to the protocol that made it",
  },
  {
    key: "encrypted-reasoning",
    field: "include: [reasoning.encrypted_content]",
    from: RESPONSES,
    to: NOT_RESPONSES,
    action: "drop",
    why: "only a Responses upstream can produce it; kept for one",
  },
  {
    key: "reasoning-summary",
    field: "reasoning.summary",
    from: RESPONSES,
    to: NOT_RESPONSES,
    action: "drop",
    why: "presentation of reasoning, not the answer",
  },
  {
    key: "store",
    field: "store",
    from: ["openai-chat", "openai-responses"],
    to: NOT_RESPONSES,
    action: "drop",
    why: "the other protocols store nothing; store:false is honoured by not storing",
  },
  {
    key: "previous-response-id",
    field: "previous_response_id / conversation",
    from: RESPONSES,
    to: NOT_RESPONSES,
    action: "refuse",
    why: "the earlier turns live in a Responses server's store; another protocol would answer without them",
  },
  {
    key: "metadata",
    field:
      "metadata (other than user_id) / service_tier / seed / prompt_cache_key / safety_identifier / stream_options / prediction / truncation / text.verbosity",
    from: ALL,
    to: ALL,
    action: "drop",
    why: "bookkeeping and cache hints that cannot change the answer",
  },
  {
    key: "user",
    field: "user ↔ metadata.user_id",
    from: ALL,
    to: ALL,
    action: "translate",
    why: "end-user id in each protocol's own field",
  },
  {
    key: "stop",
    field: "stop ↔ stop_sequences",
    from: ["openai-chat", "anthropic-messages"],
    to: ["openai-chat", "anthropic-messages"],
    action: "translate",
    why: "the same stop sequences, each protocol's field",
  },
  {
    key: "stop-unsupported",
    field: "stop / stop_sequences",
    from: ["openai-chat", "anthropic-messages"],
    to: RESPONSES,
    action: "refuse",
    why: "the Responses API has no stop sequences; the answer would run past them",
  },
  {
    key: "json-schema",
    field: "response_format json_schema / json_object, text.format",
    from: OPENAI,
    to: ANTHROPIC,
    action: "refuse",
    why: "the Messages API cannot constrain output to a schema",
  },
  {
    key: "response-format",
    field: "response_format ↔ text.format",
    from: OPENAI,
    to: OPENAI,
    action: "translate",
    why: "same formats, other field",
  },
  {
    key: "n",
    field: "n > 1",
    from: ["openai-chat"],
    to: ["anthropic-messages", "openai-responses"],
    action: "refuse",
    why: "the target returns exactly one answer",
  },
  {
    key: "sampling",
    field: "logprobs / top_logprobs / frequency_penalty / presence_penalty / logit_bias / top_k",
    from: ALL,
    to: ALL,
    action: "refuse",
    why: "the target has no such control; the answer would differ",
  },
  {
    key: "modalities",
    field: "modalities / audio other than text",
    from: ["openai-chat"],
    to: ALL,
    action: "refuse",
    why: "only text output is carried",
  },
  {
    key: "custom-tool",
    field: "tools[type=custom] (freeform)",
    from: RESPONSES,
    to: NOT_RESPONSES,
    action: "translate",
    why: "a function tool taking one string `input`; its calls come back as custom tool calls",
  },
  {
    key: "custom-tool-grammar",
    field: "tools[type=custom].format (grammar)",
    from: RESPONSES,
    to: NOT_RESPONSES,
    action: "drop",
    why: "the grammar is not enforced; its definition is appended to the tool description",
  },
  {
    key: "offered-tool",
    field: "tools[type=web_search | namespace] offered, not forced (Codex)",
    from: RESPONSES,
    to: NOT_RESPONSES,
    action: "drop",
    why: "hosted search and namespaced tool groups exist only on a Responses server; the model answers without them, and tool_choice naming one is refused",
  },
  {
    key: "tool-type",
    field: "server tools (web_search, bash_*, text_editor_*, computer, mcp, file_search, …)",
    from: ALL,
    to: ALL,
    action: "refuse",
    why: "a tool the target cannot run; the model would answer without it",
  },
  {
    key: "tool-choice",
    field:
      "tool_choice auto / none / required(any) / named tool; parallel_tool_calls ↔ disable_parallel_tool_use",
    from: ALL,
    to: ALL,
    action: "translate",
    why: "same choices, each protocol's words",
  },
  {
    key: "images",
    field: "image blocks / image_url / input_image",
    from: ALL,
    to: ALL,
    action: "translate",
    why: "base64 data URLs and URLs; file ids are refused",
  },
  {
    key: "max-tokens",
    field: "max_tokens / max_completion_tokens / max_output_tokens",
    from: ALL,
    to: ALL,
    action: "translate",
    why: "Anthropic requires one: 4096 when the client set none",
  },
] as const satisfies readonly DegradeRule[];

/** Keys of {@link DEGRADE_POLICY}. */
type DegradeKey = (typeof DEGRADE_POLICY)[number]["key"];

/** The rule for `key`. */
function degradeRule(key: DegradeKey): DegradeRule {
  const rule = DEGRADE_POLICY.find((r) => r.key === key);
  if (!rule) throw new Error(`no degrade rule ${key}`);
  return rule;
}

/**
 * The refusal of `field` (a JSON path in the client body) under rule `key`: a `ProtocolError`
 * (`unsupported_field`) whose message says which target (when known) cannot honour it and why.
 */
export function refuseField(key: DegradeKey, field: string, target?: string): ProtocolError {
  const where = target
    ? `cannot be sent to an ${target} upstream`
    : "cannot be carried to another protocol";
  return new ProtocolError({
    code: "unsupported_field",
    field,
    message: `${where}: ${degradeRule(key).why}`,
  });
}

/** A client body that is not valid for its own protocol: `ProtocolError` (`invalid_field`). */
export function invalidField(
  field: string,
  message: string,
  allowed?: readonly string[],
): ProtocolError {
  return new ProtocolError({
    code: "invalid_field",
    field,
    message,
    ...(allowed ? { allowed } : {}),
  });
}

/** A field (or value) the hub does not know: refused, since it might change the answer. */
export function unknownField(field: string, target: string): ProtocolError {
  return new ProtocolError({
    code: "unsupported_field",
    field,
    message: `has no equivalent in ${target} and could change the answer`,
  });
}

/** The degrade policy as a markdown table (for the gateway README). */
export function degradeTableMarkdown(): string {
  const rows = DEGRADE_POLICY.map(
    (r) => `| ${r.field} | ${r.from.join(", ")} | ${r.to.join(", ")} | ${r.action} | ${r.why} |`,
  );
  return [
    "| Field | From | To | Action | What happens |",
    "| --- | --- | --- | --- | --- |",
    ...rows,
  ].join("\n");
}
