import {
  type IrRequest,
  ProtocolError,
  type ProtocolName,
  passThroughRequest,
  translateRequest,
} from "../protocols";
import type { ClientRequest } from "./types";

/** One client body made ready for one upstream protocol and model. */
export interface UpstreamBody {
  /** The serialised upstream body. */
  readonly text: string;
  /** Client fields dropped on the way ([] on a same-protocol pass-through). */
  readonly dropped: readonly string[];
  /** The decoded client request when the body was translated (the response and stream encoders read it). */
  readonly request: IrRequest | undefined;
  /** The upstream's hub protocol. */
  readonly protocol: ProtocolName;
}

/**
 * The body of `request` for an upstream speaking `protocol` as `model`, asking it to stream when
 * `stream` is true (the client's own choice, or a whole request to an upstream that only
 * streams): a same-protocol body is passed through (`model` and `stream` set, and
 * `promptCacheKey` where the client sent none, nothing else touched); any other goes through the
 * hub. Throws `ProtocolError` naming the field when the upstream cannot carry the request
 * faithfully; the dispatcher then skips that target. `bodies` caches one body per protocol,
 * model, stream mode and cache key for one client request, so a fall-through to the same shape
 * encodes once.
 */
export function upstreamBodyFor(
  request: ClientRequest,
  protocol: ProtocolName,
  model: string,
  stream: boolean,
  bodies: Map<string, UpstreamBody>,
  promptCacheKey?: string,
): UpstreamBody {
  const key = `${protocol}\u0000${model}\u0000${stream ? "stream" : "whole"}\u0000${promptCacheKey ?? ""}`;
  const cached = bodies.get(key);
  if (cached !== undefined) return cached;
  const options =
    promptCacheKey === undefined ? { model, stream } : { model, stream, promptCacheKey };
  let body: UpstreamBody;
  if (request.subPath !== undefined && protocol !== request.api) {
    // A sub-endpoint (Responses `/compact`) has no equivalent in another protocol.
    throw new ProtocolError({
      code: "unsupported_field",
      field: "endpoint",
      message: `${request.subPath} is served only by a ${request.api} upstream, and this target speaks ${protocol}`,
    });
  }
  if (protocol === request.api) {
    const text = JSON.stringify(passThroughRequest(protocol, request.body, options));
    body = { text, dropped: NOTHING_DROPPED, request: undefined, protocol };
  } else {
    const translated = translateRequest(request.api, protocol, request.body, options);
    body = {
      text: JSON.stringify(translated.body),
      dropped: translated.dropped,
      request: translated.request,
      protocol,
    };
  }
  bodies.set(key, body);
  return body;
}

const NOTHING_DROPPED: readonly string[] = Object.freeze([]);

/** Sets `x-planfirst-dropped` when the hub dropped client fields on the way. */
export function writeDropped(headers: Record<string, string>, dropped: readonly string[]): void {
  if (dropped.length > 0) headers["x-planfirst-dropped"] = dropped.join(", ");
}
