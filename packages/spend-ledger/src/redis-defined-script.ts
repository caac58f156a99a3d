import type { Redis } from "ioredis";

type ScriptCall<Reply> = (...args: Array<string | number>) => Promise<Reply>;

const defined = new WeakMap<Redis, Map<string, ScriptCall<unknown>>>();

/**
 * Script `lua` with `numberOfKeys` keys, as command `name` of `client` (defined on first use):
 * a call sends its SHA and its arguments (EVALSHA), and the script's text only when Redis has
 * lost it (after a restart or `SCRIPT FLUSH`; ioredis resends it then). Every script of the
 * Redis store is called this way, never by EVAL, which sends and hashes the text every time.
 */
export function definedScript<Reply>(
  client: Redis,
  name: string,
  numberOfKeys: number,
  lua: string,
): ScriptCall<Reply> {
  let scripts = defined.get(client);
  if (scripts === undefined) {
    scripts = new Map();
    defined.set(client, scripts);
  }
  let call = scripts.get(name);
  if (call === undefined) {
    client.defineCommand(name, { numberOfKeys, lua });
    const command = (client as unknown as Record<string, ScriptCall<unknown>>)[name]!;
    call = (...args) => command.apply(client, args);
    scripts.set(name, call);
  }
  return call as ScriptCall<Reply>;
}
