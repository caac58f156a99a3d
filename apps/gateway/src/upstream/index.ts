export { createUpstreamClient } from "./upstream-client";
export { UpstreamError, type UpstreamErrorCode } from "./upstream-error";
export type {
  AbortListener,
  AbortSignalLike,
  ChunkReader,
  UpstreamClient,
  UpstreamClientOptions,
  UpstreamRequest,
  UpstreamResponse,
} from "./upstream-types";
