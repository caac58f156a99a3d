export { createUndiciUpstreamClient } from "./undici-client";
export {
  type AbortListener,
  type AbortSignalLike,
  type ChunkReader,
  createUpstreamClient,
  type UpstreamClient,
  type UpstreamClientOptions,
  type UpstreamRequest,
  type UpstreamResponse,
} from "./upstream-client";
export { UpstreamError, type UpstreamErrorCode } from "./upstream-error";
