export { createUpstreamClient } from "./upstream-client";
export { UpstreamError } from "./upstream-error";
export type {
  AbortListener,
  AbortSignalLike,
  ChunkReader,
  UpstreamClient,
  UpstreamRequest,
  UpstreamResponse,
} from "./upstream-types";
