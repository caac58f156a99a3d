/** A JSON scalar a body rule sets. */
type BodyValue = string | number | boolean;

/**
 * What an upstream requires of every request body, whatever the client sent (the Codex backend
 * refuses a body whose `store` is not `false` and one without `instructions`,
 * quota-signals.md §15): `fixed` fields always take their value, and a client value that
 * differs is dropped and listed (`x-planfirst-dropped`); `defaults` fill a field the body lacks
 * (null counts as absent) and never replace one it has.
 */
export interface BodyRules {
  readonly fixed?: Readonly<Record<string, BodyValue>>;
  readonly defaults?: Readonly<Record<string, BodyValue>>;
}

/**
 * Applies `rules` to `body` in place; returns `dropped` with the fields whose client value a
 * fixed rule replaced (the same array when none was).
 */
export function applyBodyRules(
  body: Record<string, unknown>,
  rules: BodyRules,
  dropped: readonly string[],
): readonly string[] {
  let out = dropped;
  for (const [field, value] of Object.entries(rules.fixed ?? {})) {
    const sent = body[field];
    if (sent !== undefined && sent !== null && sent !== value && !out.includes(field)) {
      out = [...out, field];
    }
    body[field] = value;
  }
  for (const [field, value] of Object.entries(rules.defaults ?? {})) {
    if (body[field] === undefined || body[field] === null) body[field] = value;
  }
  return out;
}

const keys = new WeakMap<BodyRules, string>();

/** A text naming `rules` (equal rules, equal text), for caching the bodies built with them. */
export function bodyRulesKey(rules: BodyRules): string {
  let key = keys.get(rules);
  if (key === undefined) {
    key = JSON.stringify([rules.fixed ?? {}, rules.defaults ?? {}]);
    keys.set(rules, key);
  }
  return key;
}
