import {
  type BodyRules,
  bodyRulesKey,
  type EncodeRequestOptions,
  legOf,
  type ProtocolName,
  type UpstreamBody,
} from "../protocols";
import type { ClientRequest } from "./types";

export type { UpstreamBody } from "../protocols";

/**
 * The body of `request` for an upstream speaking `protocol` as `model`, asking it to stream when
 * `stream` is true (the client's own choice, or a whole request to an upstream that only
 * streams), made by the leg between the two protocols (`legOf`): a same-protocol body is passed
 * through (`model` and `stream` set, and `promptCacheKey` where the client sent none, nothing
 * else touched), any other goes through the hub. Throws `ProtocolError` naming the field when
 * the upstream cannot carry the request faithfully; the dispatcher then skips that target.
 * `bodyRules` are the upstream's requirements of every body (see `BodyRules`). `bodies` caches
 * one body per protocol, model, stream mode, cache key and body rules for one client request, so
 * a fall-through to the same shape encodes once.
 */
export function upstreamBodyFor(
  request: ClientRequest,
  protocol: ProtocolName,
  model: string,
  stream: boolean,
  bodies: Map<string, UpstreamBody>,
  promptCacheKey?: string,
  bodyRules?: BodyRules,
): UpstreamBody {
  const rules = bodyRules === undefined ? "" : bodyRulesKey(bodyRules);
  const key = `${protocol}\u0000${model}\u0000${stream ? "stream" : "whole"}\u0000${promptCacheKey ?? ""}\u0000${rules}`;
  const cached = bodies.get(key);
  if (cached !== undefined) return cached;
  const options: EncodeRequestOptions = { model, stream };
  if (promptCacheKey !== undefined) options.promptCacheKey = promptCacheKey;
  if (bodyRules !== undefined) options.bodyRules = bodyRules;
  const body = legOf(request.protocol, protocol).encodeRequest(
    request.body,
    options,
    request.subPath,
  );
  bodies.set(key, body);
  return body;
}

/** Sets `x-planfirst-dropped` when the hub dropped client fields on the way. */
export function writeDropped(headers: Record<string, string>, dropped: readonly string[]): void {
  if (dropped.length > 0) headers["x-planfirst-dropped"] = dropped.join(", ");
}
