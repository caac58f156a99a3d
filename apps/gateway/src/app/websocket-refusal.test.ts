import { describe, expect, it } from "vitest";
import { isWebSocketHandshake } from "./websocket-refusal";

describe("isWebSocketHandshake", () => {
  it("is a GET whose Upgrade header lists websocket, in any case and among other tokens", () => {
    expect(isWebSocketHandshake("GET", "websocket")).toBe(true);
    expect(isWebSocketHandshake("GET", "WebSocket")).toBe(true);
    expect(isWebSocketHandshake("GET", "foo/2, websocket")).toBe(true);
  });

  it("is not another method, another protocol or no Upgrade header at all", () => {
    expect(isWebSocketHandshake("POST", "websocket")).toBe(false);
    expect(isWebSocketHandshake("GET", "h2c")).toBe(false);
    expect(isWebSocketHandshake("GET", "websockets")).toBe(false);
    expect(isWebSocketHandshake("GET", undefined)).toBe(false);
  });
});
