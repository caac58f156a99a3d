import { describe, expect, it } from "vitest";
import type { ClientStreamSource } from "../http/reply";
import { type ClientProtocolName, clientWireOf, codecFor } from "../protocols";
import { HeldStreamSource } from "./held-stream";
import type { WaitTimers } from "./waiting-room";

/** What a held stream takes of a client protocol: its keep-alive and its error frames. */
function wireOf(protocol: ClientProtocolName) {
  return {
    keepAlive: clientWireOf(protocol).keepAlive,
    errorFrames: codecFor(protocol).relay.errorFrames,
  };
}

/** Timers fired by hand, in the order they were set. */
function manualTimers() {
  const pending = new Map<number, () => void>();
  let nextId = 0;
  const timers: WaitTimers = {
    set(callback) {
      pending.set(++nextId, callback);
      return nextId;
    },
    clear(handle) {
      pending.delete(handle as number);
    },
  };
  return {
    timers,
    pending: () => pending.size,
    fire() {
      const [id, callback] = [...pending][0]!;
      pending.delete(id);
      callback();
    },
  };
}

/** A committed upstream stream that gives `parts` and ends. */
function upstream(first: string, parts: string[]): ClientStreamSource & { cancelled: boolean } {
  const rest = [...parts];
  return {
    first,
    cancelled: false,
    async next() {
      const text = rest.shift();
      return text === undefined ? { text: "", done: true } : { text, done: rest.length === 0 };
    },
    cancel() {
      this.cancelled = true;
    },
  };
}

describe("a held stream (ladder.md §17, WAIT6)", () => {
  it("opens with the protocol's keep-alive, repeats it until the answer, then goes on with the answer's stream", async () => {
    const clock = manualTimers();
    const held = new HeldStreamSource({
      ...wireOf("anthropic-messages"),
      keepAliveMs: 5_000,
      timers: clock.timers,
    });
    expect(held.first).toBe('event: ping\ndata: {"type":"ping"}\n\n');
    const waiting = held.next();
    clock.fire();
    expect(await waiting).toEqual({ text: held.first, done: false });
    const answered = held.next();
    held.answer({
      kind: "stream",
      status: 200,
      headers: {},
      source: upstream("event: message_start\n\n", ["event: message_stop\n\n"]),
    });
    expect(await answered).toEqual({ text: "event: message_start\n\n", done: false });
    expect(clock.pending()).toBe(0);
    expect(await held.next()).toEqual({ text: "event: message_stop\n\n", done: true });
    expect(await held.next()).toEqual({ text: "", done: true });
  });

  it("keeps an OpenAI chat client with SSE comments and ends with its error frame when the wait became a 429", async () => {
    const clock = manualTimers();
    const held = new HeldStreamSource({
      ...wireOf("openai-chat"),
      keepAliveMs: 5_000,
      timers: clock.timers,
    });
    expect(held.first).toBe(": keep-alive\n\n");
    const next = held.next();
    held.fail({
      type: "rate_limit_error",
      code: "plan_quota_exhausted",
      message: "no plan connection with verified headroom can serve auto/subscription",
    });
    const end = await next;
    expect(end.done).toBe(true);
    expect(JSON.parse(end.text.replace(/^data: /, ""))).toEqual({
      error: {
        type: "rate_limit_error",
        code: "plan_quota_exhausted",
        message: "no plan connection with verified headroom can serve auto/subscription",
      },
    });
    expect(end.text).not.toContain("[DONE]");
  });

  it("turns an upstream refusal body into the protocol's error event, never a clean end", async () => {
    const clock = manualTimers();
    const held = new HeldStreamSource({
      ...wireOf("anthropic-messages"),
      keepAliveMs: 5_000,
      timers: clock.timers,
    });
    held.answer({
      kind: "body",
      status: 400,
      headers: {},
      body: JSON.stringify({
        type: "error",
        error: { type: "invalid_request_error", message: "max_tokens: too large" },
      }),
    });
    const end = await held.next();
    expect(end).toEqual({
      text: 'event: error\ndata: {"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: too large"}}\n\n',
      done: true,
    });
  });

  it("a client that goes away cancels the answer that comes after it", async () => {
    const clock = manualTimers();
    const held = new HeldStreamSource({
      ...wireOf("openai-responses"),
      keepAliveMs: 5_000,
      timers: clock.timers,
    });
    const waiting = held.next();
    held.cancel();
    expect(await waiting).toEqual({ text: "", done: true });
    const late = upstream("event: response.created\n\n", []);
    held.answer({ kind: "stream", status: 200, headers: {}, source: late });
    expect(late.cancelled).toBe(true);
    expect(clock.pending()).toBe(0);
  });
});
