/** A patch as Codex's `apply_patch` custom tool carries it. Test support only. */
export const PATCH =
  "*** Begin Patch\n*** Update File: src/app.ts\n@@\n-const port = 3000;\n+const port = Number(process.env.PORT ?? 3000);\n*** End Patch";

/** The Lark grammar Codex declares for `apply_patch`. Test support only. */
export const GRAMMAR =
  'start: begin_patch hunk+ end_patch\nbegin_patch: "*** Begin Patch" LF\nend_patch: "*** End Patch" LF?';

/**
 * A request in the shape Codex CLI sends to a custom provider (`wire_api = "responses"`), with
 * `extra` fields on top. Test support only.
 */
export function codexRequest(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: "gpt-5-codex",
    instructions:
      "You are a coding agent in a terminal client; follow the repository's conventions.",
    input: [
      {
        type: "message",
        role: "developer",
        content: [
          {
            type: "input_text",
            text: "<permissions instructions>workspace-write</permissions instructions>",
          },
        ],
      },
      {
        type: "message",
        role: "user",
        content: [
          {
            type: "input_text",
            text: "<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>",
          },
        ],
      },
      {
        type: "message",
        role: "user",
        content: [
          { type: "input_text", text: "Read the port from PORT" },
          { type: "input_image", image_url: "data:image/png;base64,iVBORw0KGgo=" },
        ],
      },
      {
        type: "reasoning",
        id: "rs_1",
        summary: [{ type: "summary_text", text: "**Finding the port**" }],
        content: null,
        encrypted_content: "gAAAAABowvGh",
      },
      {
        type: "function_call",
        id: "fc_1",
        name: "shell",
        arguments: '{"command":["rg","port"]}',
        call_id: "call_1",
      },
      {
        type: "function_call_output",
        call_id: "call_1",
        output: "src/app.ts:1:const port = 3000;",
      },
      {
        type: "custom_tool_call",
        id: "ctc_1",
        status: "completed",
        call_id: "call_2",
        name: "apply_patch",
        input: PATCH,
      },
      { type: "custom_tool_call_output", call_id: "call_2", output: "Success. Updated src/app.ts" },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "Done." }] },
      { type: "message", role: "user", content: [{ type: "input_text", text: "Now add a test." }] },
    ],
    tools: [
      {
        type: "function",
        name: "shell",
        description: "Runs a shell command and returns its output.",
        strict: false,
        parameters: {
          type: "object",
          properties: { command: { type: "array", items: { type: "string" } } },
          required: ["command"],
          additionalProperties: false,
        },
      },
      {
        type: "custom",
        name: "apply_patch",
        description: "Use the `apply_patch` tool to edit files.",
        format: { type: "grammar", syntax: "lark", definition: GRAMMAR },
      },
    ],
    tool_choice: "auto",
    parallel_tool_calls: false,
    reasoning: { effort: "medium", summary: "auto" },
    store: false,
    stream: true,
    include: ["reasoning.encrypted_content"],
    prompt_cache_key: "0199a7b2-5c1d-7e3f-9a0b-1c2d3e4f5a6b",
    text: { verbosity: "medium" },
    ...extra,
  };
}
