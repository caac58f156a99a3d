import { applyBodyRules } from "./body-rules";
import type { ClientStream, EncodeRequestOptions, EncodeResponseOptions } from "./codec";
import { createStreamTranslator, translateRequest, translateResponse } from "./hub";
import type { IrRequest, IrUsage } from "./ir";
import { ProtocolError } from "./protocol-error";
import {
  CLIENT_PROTOCOL_NAMES,
  type ClientProtocolName,
  clientWireOf,
  codecFor,
  PROTOCOL_NAMES,
  type ProtocolName,
} from "./registry";
import { createFrameRelay } from "./sse/frame-relay";

type Json = Record<string, unknown>;

/** One client body made ready for one upstream protocol and model, and the leg that made it. */
export interface UpstreamBody {
  /** The serialised upstream body. */
  readonly text: string;
  /**
   * Client fields dropped on the way ([] on a same-protocol pass-through, unless the upstream's
   * body rules replaced one).
   */
  readonly dropped: readonly string[];
  /** The decoded client request when the body was translated (the answer's encoders read it). */
  readonly request: IrRequest | undefined;
  /** The way between the client's protocol and the upstream's that the answer comes back by. */
  readonly leg: Leg;
}

/** A whole upstream answer as the client reads it. */
export interface WholeAnswer {
  /** The client body. */
  readonly text: string;
  /** The usage the upstream reported; null when none. */
  readonly usage: IrUsage | null;
  /** Client fields dropped on the way there and back, for `x-planfirst-dropped`. */
  readonly dropped: readonly string[];
}

/**
 * How a request of one client protocol reaches an upstream of another (or the same) protocol and
 * how its answer comes back: relayed when the two are the same protocol, translated through the
 * hub otherwise. The one place that choice is made; see {@link legOf}.
 */
interface Leg {
  /** The protocol the client speaks. */
  readonly client: ClientProtocolName;
  /** The protocol the upstream speaks. */
  readonly upstream: ProtocolName;
  /**
   * True when both speak one protocol: bodies pass through (`model` and `stream` set), frames
   * are copied byte for byte, and an upstream's error body is already in the client's shape.
   */
  readonly relay: boolean;
  /**
   * The upstream body for client body `body` as `options.model`, asking to stream when
   * `options.stream` is true, with `options.promptCacheKey` in the upstream protocol's prompt
   * cache field when the body has none of its own (a protocol without the field ignores it).
   * `subPath` is a sub-endpoint of the client's route (`/compact`): only an upstream of the
   * client's own protocol has it. Throws `ProtocolError` naming the field when the upstream
   * cannot carry the request faithfully.
   */
  encodeRequest(
    body: Json,
    options: EncodeRequestOptions,
    subPath: string | undefined,
  ): UpstreamBody;
  /**
   * The client's answer for a whole upstream answer: `text` as it came (usage read from `body`,
   * its parse) on a relay, else `body` translated. `now` (epoch ms) is read only to translate.
   * Throws `ProtocolError` for a body that is not an answer of the upstream's protocol.
   */
  readWhole(
    sent: UpstreamBody,
    text: string,
    body: Json,
    model: string,
    now: () => number,
  ): WholeAnswer;
  /**
   * The client stream for an upstream stream: the frame relay (hiding only the frames the
   * pass-through asked for on the client's behalf) or the hub's translator. `clientBody` is the
   * client's request body.
   */
  openStream(sent: UpstreamBody, clientBody: Json, model: string, now: () => number): ClientStream;
}

const NOTHING_DROPPED: readonly string[] = Object.freeze([]);

class RelayLeg implements Leg {
  readonly relay = true;
  readonly upstream: ProtocolName;

  constructor(readonly client: ClientProtocolName) {
    this.upstream = client;
  }

  encodeRequest(body: Json, options: EncodeRequestOptions): UpstreamBody {
    const copy = clientWireOf(this.client).passThroughRequest(body, options);
    const cacheField = codecFor(this.upstream).promptCacheKeyField;
    if (
      options.promptCacheKey !== undefined &&
      cacheField !== undefined &&
      copy[cacheField] == null
    ) {
      copy[cacheField] = options.promptCacheKey;
    }
    const dropped = options.bodyRules
      ? applyBodyRules(copy, options.bodyRules, NOTHING_DROPPED)
      : NOTHING_DROPPED;
    return { text: JSON.stringify(copy), dropped, request: undefined, leg: this };
  }

  readWhole(sent: UpstreamBody, text: string, body: Json): WholeAnswer {
    return { text, usage: codecFor(this.upstream).responseUsage(body), dropped: sent.dropped };
  }

  openStream(_sent: UpstreamBody, clientBody: Json): ClientStream {
    const hidden = clientWireOf(this.client).hiddenFrames(clientBody);
    return createFrameRelay(codecFor(this.upstream), hidden ? { hidden } : undefined);
  }
}

class TranslateLeg implements Leg {
  readonly relay = false;

  constructor(
    readonly client: ClientProtocolName,
    readonly upstream: ProtocolName,
  ) {}

  encodeRequest(
    body: Json,
    options: EncodeRequestOptions,
    subPath: string | undefined,
  ): UpstreamBody {
    if (subPath !== undefined) {
      // A sub-endpoint (Responses `/compact`) has no equivalent in another protocol.
      throw new ProtocolError({
        code: "unsupported_field",
        field: "endpoint",
        message: `${subPath} is served only by a ${this.client} upstream, and this target speaks ${this.upstream}`,
      });
    }
    const translated = translateRequest(this.client, this.upstream, body, options);
    const dropped = options.bodyRules
      ? applyBodyRules(translated.body, options.bodyRules, translated.dropped)
      : translated.dropped;
    return {
      text: JSON.stringify(translated.body),
      dropped,
      request: translated.request,
      leg: this,
    };
  }

  readWhole(
    sent: UpstreamBody,
    _text: string,
    body: Json,
    model: string,
    now: () => number,
  ): WholeAnswer {
    const translated = translateResponse(
      this.upstream,
      this.client,
      body,
      answerOptions(sent, model, now),
    );
    const dropped =
      translated.dropped.length > 0 ? [...sent.dropped, ...translated.dropped] : sent.dropped;
    return { text: JSON.stringify(translated.body), usage: translated.usage, dropped };
  }

  openStream(
    sent: UpstreamBody,
    _clientBody: Json,
    model: string,
    now: () => number,
  ): ClientStream {
    return createStreamTranslator(this.upstream, this.client, answerOptions(sent, model, now));
  }
}

function answerOptions(
  sent: UpstreamBody,
  model: string,
  now: () => number,
): EncodeResponseOptions {
  return { model, nowMs: now(), ...(sent.request ? { request: sent.request } : {}) };
}

/** Every leg, made once: by client protocol, then by upstream protocol. */
const LEGS = Object.fromEntries(
  CLIENT_PROTOCOL_NAMES.map((client) => [
    client,
    Object.fromEntries(
      PROTOCOL_NAMES.map((upstream) => [
        upstream,
        upstream === client ? new RelayLeg(client) : new TranslateLeg(client, upstream),
      ]),
    ),
  ]),
) as Readonly<Record<ClientProtocolName, Readonly<Record<ProtocolName, Leg>>>>;

/**
 * The leg from a client of `client` to an upstream of `upstream`: a relay when they are the
 * same protocol, else a translation through the hub. Legs are made once; this allocates nothing.
 */
export function legOf(client: ClientProtocolName, upstream: ProtocolName): Leg {
  return LEGS[client][upstream];
}
