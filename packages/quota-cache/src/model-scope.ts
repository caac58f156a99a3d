const MODEL_ID_SEPARATORS = /[\s\-_./:@]+/;

function modelIdTokens(modelId: string): string[] {
  return modelId.toLowerCase().split(MODEL_ID_SEPARATORS).filter(Boolean);
}

/**
 * Whether a window or cooldown scoped to `scopeModel` gates requests for `model`.
 *
 * Rule: both ids are lower-cased and split into tokens on `-`, `_`, `.`, `/`, `:`, `@` and
 * spaces; the scope applies when its tokens appear, in order and contiguous, in the model's
 * tokens. So scope `opus` gates `claude-opus-4-1`, `claude-sonnet-4.5` gates
 * `anthropic/claude-sonnet-4-5`, `gemini-2.5-pro` gates `gemini-2.5-pro-preview`; scope `opus`
 * does not gate `claude-sonnet-4-5`, and `claude-opus-4-1` does not gate `claude-opus-4`.
 * An empty scope gates nothing.
 */
export function scopeAppliesToModel(scopeModel: string, model: string): boolean {
  const scope = modelIdTokens(scopeModel);
  const target = modelIdTokens(model);
  if (scope.length === 0) return false;
  for (let start = 0; start + scope.length <= target.length; start++) {
    if (scope.every((token, offset) => target[start + offset] === token)) return true;
  }
  return false;
}

/** Canonical form of a scope model for keys: lower-cased, trimmed; empty → undefined. */
export function normaliseScopeModel(model: string | undefined | null): string | undefined {
  const trimmed = model?.trim().toLowerCase();
  return trimmed ? trimmed : undefined;
}
