import { describe, expect, it } from "vitest";
import { COMPLETION_ROUTES, completionRoutes, protocolOfPath } from "./route-table";

describe("the completion route table", () => {
  it("answers each completion path, and the paths under it, in that route's error shape", () => {
    expect(protocolOfPath("/v1/messages")).toBe("anthropic-messages");
    expect(protocolOfPath("/v1/messages/count_tokens")).toBe("anthropic-messages");
    expect(protocolOfPath("/v1/chat/completions")).toBe("openai-chat");
    expect(protocolOfPath("/v1/responses/compact")).toBe("openai-responses");
    // A lookalike path is not under the route.
    expect(protocolOfPath("/v1/messagesx")).toBe("openai-chat");
    expect(protocolOfPath("/v1/models")).toBe("openai-chat");
  });

  it("lists every route once, each with its own protocol", () => {
    const routes = completionRoutes();
    expect(routes).toEqual(Object.values(COMPLETION_ROUTES));
    expect(new Set(routes.map((route) => route.path)).size).toBe(routes.length);
    for (const route of routes) expect(protocolOfPath(route.path)).toBe(route.protocol);
  });
});
