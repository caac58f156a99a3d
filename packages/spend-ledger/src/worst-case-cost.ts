import type { ModelPrice } from "@planfirst/billing-catalog";
import { costOf, type TokenPrice } from "./cost";
import { invalidArgument } from "./errors";
import type { MicroUsd } from "./money";

/** Output tokens assumed when neither the request nor the model states a limit. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 32_000;

/** Input tokens counted for each inline image, instead of its base64 bytes. */
export const INLINE_IMAGE_TOKENS = 6_000;

/** Input of {@link estimateWorstCaseCost}. */
export interface WorstCaseCostInput {
  /** The parsed JSON request body as the client sent it. */
  body: unknown;
  /**
   * The body as it goes upstream, serialised by `JSON.stringify` (the client's body with its
   * model set, or its translation to the upstream's protocol), when the caller has it. The input
   * is then read from this text: its bytes, inline images and `cache_control` are what the
   * provider bills, and `body` is not serialised a second time (milliseconds for a large agent
   * turn). The output limit and `n` are still read from `body`.
   */
  sentText?: string;
  /** Wire protocol of the body: OpenAI chat/responses or Anthropic messages. */
  protocol: "openai" | "anthropic";
  /** Catalog price of the model that will serve the request (USD per 1M tokens). */
  price: TokenPrice & Pick<ModelPrice, "maxOutputTokens">;
  /** Operator limit on output tokens; overrides `price.maxOutputTokens`. */
  maxOutputTokens?: number;
}

/** Result of {@link estimateWorstCaseCost}. */
export interface WorstCaseCost {
  /** Over-estimate of the prompt tokens. */
  inputTokens: number;
  /** Most output tokens the request can produce. */
  outputTokens: number;
  /** Cost of those tokens in integer micro-USD, rounded up; the amount to reserve. */
  costMicroUsd: MicroUsd;
}

/**
 * The part of {@link estimateWorstCaseCost} that reads the body, and only the body: computed
 * once per request and priced once per target with {@link priceWorstCase}, so a fall-through
 * to a second paid target does not serialise and scan the body again.
 */
export interface WorstCaseScan {
  /** Input tokens before any price: UTF-8 bytes / 3, rounded up, plus the inline images. */
  readonly inputTokens: number;
  /** The output limit the body asks for, if it asks for one. */
  readonly requestedOutputTokens: number | undefined;
  /** OpenAI `n` (1 for Anthropic or when absent). */
  readonly choices: number;
  /** True when the body carries Anthropic `cache_control`. */
  readonly cacheControl: boolean;
}

/**
 * Upper bound on what a request can cost, for the reservation made before dispatch.
 *
 * Input: UTF-8 bytes of the body serialised as JSON, divided by 3 and rounded up. Real tokenisers
 * average about 4 bytes of English per token, and the JSON keys, quotes and escapes are counted
 * too, so this over-estimates ordinary text. Inline base64 images (`data:image/…;base64,` URLs
 * and Anthropic `source.type: "base64"` image blocks) count {@link INLINE_IMAGE_TOKENS} each
 * rather than their bytes; other inline files (PDF, audio) keep their bytes, which over-counts.
 * A body carrying Anthropic `cache_control` prices every input token at the cache-write price when
 * that is higher.
 *
 * Output: `max_completion_tokens`, `max_tokens` or `max_output_tokens` from the body, capped by
 * `maxOutputTokens` (or the catalog's `price.maxOutputTokens`); without a limit in the body, that
 * cap, or {@link DEFAULT_MAX_OUTPUT_TOKENS} when there is none. OpenAI `n` multiplies the output.
 * Equal to `priceWorstCase(scanWorstCase(input), input.price, input.maxOutputTokens)`.
 */
export function estimateWorstCaseCost(input: WorstCaseCostInput): WorstCaseCost {
  return priceWorstCase(scanWorstCase(input), input.price, input.maxOutputTokens);
}

/**
 * Reads everything the worst case needs from the body (the byte and image scan, the requested
 * output limit, `n`, `cache_control`); throws `invalid_argument` for an unknown protocol or an
 * invalid `max_*` or `n`. The result does not depend on any price.
 */
export function scanWorstCase(
  input: Pick<WorstCaseCostInput, "body" | "protocol" | "sentText">,
): WorstCaseScan {
  const { body, protocol, sentText } = input;
  if (protocol !== "openai" && protocol !== "anthropic") {
    invalidArgument("protocol", '"openai" or "anthropic"', protocol);
  }
  const scan =
    sentText === undefined ? scanBody(body) : scanText(sentText, () => JSON.parse(sentText));
  return {
    inputTokens: Math.ceil(scan.bytes / 3) + scan.images * INLINE_IMAGE_TOKENS,
    requestedOutputTokens: readRequestedOutput(body, protocol),
    choices: protocol === "openai" ? readChoices(body) : 1,
    cacheControl: scan.cacheControl,
  };
}

/**
 * The worst-case cost of a scanned body at one price: the output limit capped by
 * `maxOutputTokens` (or `price.maxOutputTokens`), times `n`, and the input at the dearest price
 * it can be billed at (see below). No body is read here.
 */
export function priceWorstCase(
  scan: WorstCaseScan,
  price: WorstCaseCostInput["price"],
  maxOutputTokens?: number,
): WorstCaseCost {
  const { inputTokens, requestedOutputTokens: requested } = scan;
  const limit = maxOutputTokens ?? price.maxOutputTokens;
  if (limit !== undefined && (!Number.isSafeInteger(limit) || limit <= 0)) {
    invalidArgument("maxOutputTokens", "a positive integer", limit);
  }
  const perChoice =
    requested === undefined
      ? (limit ?? DEFAULT_MAX_OUTPUT_TOKENS)
      : Math.min(requested, limit ?? requested);
  const outputTokens = perChoice * scan.choices;

  // Every input token at the dearest price it can be billed at: a cache write when the body
  // asks for caching, a cache read (which needs no asking) when a price list makes it dearer
  // than plain input, an error in the list that must still never let a booking fall short.
  const writePrice =
    scan.cacheControl && price.cacheWritePerMTok !== undefined ? price.cacheWritePerMTok : 0;
  const readPrice = price.cachedInputPerMTok ?? 0;
  const dearest = Math.max(price.inputPerMTok, writePrice, readPrice);
  const writesCache = dearest > price.inputPerMTok && writePrice === dearest;
  const readsCache = dearest > price.inputPerMTok && !writesCache;
  const costMicroUsd = costOf(
    {
      inputTokens,
      outputTokens,
      cacheWriteTokens: writesCache ? inputTokens : 0,
      cachedInputTokens: readsCache ? inputTokens : 0,
    },
    price,
  );
  return { inputTokens, outputTokens, costMicroUsd };
}

interface BodyScan {
  bytes: number;
  images: number;
  cacheControl: boolean;
}

/** Inline images the replacer below has dropped; reset before each serialisation through it. */
let imagesDropped = 0;

/** Replaces inline images by "" while the body is serialised, counting them. */
function dropImages(this: unknown, key: string, value: unknown): unknown {
  if (typeof value === "string" && isInlineImage(this, key, value)) {
    imagesDropped += 1;
    return "";
  }
  return value;
}

/** Serialises the body once without a replacer (the serialiser's fast path) and scans the text. */
function scanBody(body: unknown): BodyScan {
  const json = serialise(body);
  if (json === undefined) return { bytes: 0, images: 0, cacheControl: false };
  return scanText(json, () => body);
}

/**
 * Reads what the worst case needs from `json`, the `JSON.stringify` output of the value
 * `parsedOf` gives; only a text that holds "base64" (where an inline image could be) has that
 * value serialised again through {@link dropImages}. An inline image is a string holding
 * ";base64," or a `data` beside `type: "base64"`, neither of which can be written without those
 * letters (JSON escapes only quotes, backslashes and control characters).
 */
function scanText(json: string, parsedOf: () => unknown): BodyScan {
  const cacheControl = hasCacheControlKey(json);
  if (!json.includes("base64")) {
    return { bytes: Buffer.byteLength(json, "utf8"), images: 0, cacheControl };
  }
  imagesDropped = 0;
  const withoutImages = serialise(parsedOf(), dropImages) ?? "";
  return { bytes: Buffer.byteLength(withoutImages, "utf8"), images: imagesDropped, cacheControl };
}

function serialise(
  body: unknown,
  replacer?: (this: unknown, key: string, value: unknown) => unknown,
): string | undefined {
  try {
    return JSON.stringify(body, replacer);
  } catch (error) {
    // The serialiser recurses: a body nested too deep for it is refused, never a crash. It
    // could not be sent upstream either (sending serialises it the same way).
    if (error instanceof RangeError) {
      invalidArgument("body", "JSON nested shallowly enough to serialise", "too deep");
    }
    throw error;
  }
}

const CACHE_CONTROL_KEY = '"cache_control":';

/**
 * True when the serialised body has a `cache_control` key whose value is not null. In
 * `JSON.stringify` output a quote inside a string is always escaped (`\"`), so a quote right
 * after `{` or `,` opens a key: the text below matches keys only, never the words in a message.
 */
function hasCacheControlKey(json: string): boolean {
  for (let at = json.indexOf(CACHE_CONTROL_KEY); at !== -1; ) {
    const before = json.charCodeAt(at - 1);
    const valueAt = at + CACHE_CONTROL_KEY.length;
    if ((before === 0x7b || before === 0x2c) && !json.startsWith("null", valueAt)) return true;
    at = json.indexOf(CACHE_CONTROL_KEY, valueAt);
  }
  return false;
}

function isInlineImage(holder: unknown, key: string, value: string): boolean {
  if (value.startsWith("data:image/") && value.includes(";base64,")) return true;
  if (key !== "data" || typeof holder !== "object" || holder === null) return false;
  const source = holder as { type?: unknown; media_type?: unknown };
  return (
    source.type === "base64" &&
    typeof source.media_type === "string" &&
    source.media_type.startsWith("image/")
  );
}

function readRequestedOutput(body: unknown, protocol: "openai" | "anthropic"): number | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const fields = body as Record<string, unknown>;
  const names =
    protocol === "openai"
      ? ["max_completion_tokens", "max_tokens", "max_output_tokens"]
      : ["max_tokens"];
  for (const name of names) {
    const value = fields[name];
    if (value === undefined || value === null) continue;
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
      invalidArgument(`body.${name}`, "a non-negative integer", value);
    }
    return value;
  }
  return undefined;
}

function readChoices(body: unknown): number {
  if (typeof body !== "object" || body === null) return 1;
  const n = (body as { n?: unknown }).n;
  if (n === undefined || n === null) return 1;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 1) {
    invalidArgument("body.n", "a positive integer", n);
  }
  return n;
}
