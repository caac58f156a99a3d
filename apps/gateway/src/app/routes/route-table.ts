import type { ClientProtocolName } from "../../protocols";

/** One completion route: where a client API is served and which protocol it speaks. */
export interface CompletionRoute {
  readonly method: "POST";
  readonly path: string;
  /**
   * The protocol of its bodies and answers, errors included: upstreams speaking it relay,
   * others translate.
   */
  readonly protocol: ClientProtocolName;
  /** A sub-endpoint served only by upstreams of `protocol`, appended to their URL (`/compact`). */
  readonly subPath?: string;
}

/**
 * The completion routes, the one table both the Hono routes and the Node listener's fast paths
 * are built from; a new client API is one entry here plus its codec.
 */
export const COMPLETION_ROUTES = {
  chatCompletions: { method: "POST", path: "/v1/chat/completions", protocol: "openai-chat" },
  messages: { method: "POST", path: "/v1/messages", protocol: "anthropic-messages" },
  responses: { method: "POST", path: "/v1/responses", protocol: "openai-responses" },
  responsesCompact: {
    method: "POST",
    path: "/v1/responses/compact",
    protocol: "openai-responses",
    subPath: "/compact",
  },
} as const satisfies Record<string, CompletionRoute>;

const ROUTES: readonly CompletionRoute[] = Object.values(COMPLETION_ROUTES);

/** The protocol whose error shape answers a path under no completion route: OpenAI's. */
const DEFAULT_ERROR_PROTOCOL: ClientProtocolName = "openai-chat";

/**
 * The protocol whose error shape answers `path`: the completion route it is, or lies under
 * (`/v1/messages/count_tokens` answers like `/v1/messages`); OpenAI's shape everywhere else.
 */
export function protocolOfPath(path: string): ClientProtocolName {
  for (const route of ROUTES) {
    if (path === route.path || path.startsWith(`${route.path}/`)) return route.protocol;
  }
  return DEFAULT_ERROR_PROTOCOL;
}

/** Every completion route, in table order. */
export function completionRoutes(): readonly CompletionRoute[] {
  return ROUTES;
}
