/** One listed model id and who serves it. */
export interface ListedModel {
  readonly id: string;
  readonly ownedBy: string;
}

/** Who is asking for the model list, by the shape it reads. */
export type ModelListShape = "openai" | "anthropic" | "codex";

/**
 * The list shape a caller reads: Codex's `{ models: [...] }` when it is Codex (its
 * `client_version` query, or an `originator` / user agent starting `codex_`), Anthropic's when
 * the caller sends `anthropic-version` (`@anthropic-ai/sdk`'s `models.list()`, Claude Code's
 * model discovery), OpenAI's otherwise.
 */
export function modelListShape(
  query: (name: string) => string | undefined,
  header: (name: string) => string | undefined,
): ModelListShape {
  if (
    query("client_version") !== undefined ||
    header("originator")?.startsWith("codex_") === true ||
    header("user-agent")?.startsWith("codex_") === true
  ) {
    return "codex";
  }
  if (header("anthropic-version") !== undefined) return "anthropic";
  return "openai";
}

/** The OpenAI list: `object: "list"`, `data[{ id, object: "model", created, owned_by }]`. */
export function openAiModelList(models: readonly ListedModel[], createdSec: number): string {
  return JSON.stringify({
    object: "list",
    data: models.map((model) => ({
      id: model.id,
      object: "model",
      created: createdSec,
      owned_by: model.ownedBy,
      // Anthropic's fields too, for clients that read them from an OpenAI-shaped list.
      type: "model",
      display_name: model.id,
    })),
  });
}

/**
 * The Anthropic list: `data[{ type: "model", id, display_name, created_at }]`, `has_more`,
 * `first_id`, `last_id` (one page: every model fits).
 */
export function anthropicModelList(models: readonly ListedModel[], createdAt: string): string {
  return JSON.stringify({
    data: models.map((model) => ({
      type: "model",
      id: model.id,
      display_name: model.id,
      created_at: createdAt,
    })),
    has_more: false,
    first_id: models[0]?.id ?? null,
    last_id: models.at(-1)?.id ?? null,
  });
}

/**
 * Codex's list: `{ models: [] }`. Each entry Codex reads carries `base_instructions`, the system
 * prompt Codex then sends with that model; the gateway never writes a client's system prompt, so
 * it lists none and Codex keeps its own model information for whatever id it is configured with.
 */
export function codexModelList(): string {
  return JSON.stringify({ models: [] });
}
