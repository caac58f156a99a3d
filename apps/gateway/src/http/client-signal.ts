import type { IncomingMessage, ServerResponse } from "node:http";
import type { Context } from "hono";
import type { AbortListener, AbortSignalLike } from "../upstream";

/** The Node request/response `@hono/node-server` passes as `c.env`; absent under `app.request()`. */
interface NodeBindings {
  incoming?: IncomingMessage;
  outgoing?: ServerResponse;
}

/**
 * One request header, read from Node's parsed headers when served by `@hono/node-server` (no
 * web `Headers` object is built on the hot path), else from the web request.
 */
export function requestHeader(c: Context, name: string): string | undefined {
  const incoming = (c.env as NodeBindings | undefined)?.incoming;
  if (incoming) {
    const value = incoming.headers[name];
    return Array.isArray(value) ? value[0] : value;
  }
  return c.req.header(name);
}

/**
 * A signal aborted when the client goes away before the response is finished. Under
 * `@hono/node-server` it is a small flag set from the Node response's `close` event (building
 * the web `Request` just for its signal would cost a body stream per request, and an
 * `AbortController` with `EventTarget` listeners costs more than the flag needs).
 */
export function clientSignal(c: Context): AbortSignalLike | undefined {
  const outgoing = (c.env as NodeBindings | undefined)?.outgoing;
  if (!outgoing) return c.req.raw.signal;
  return new ClientGoneSignal(outgoing);
}

/** `clientSignal` for a request served straight from the Node listener. */
export function nodeClientSignal(outgoing: ServerResponse): AbortSignalLike {
  return new ClientGoneSignal(outgoing);
}

/** Aborted once when the response closes unfinished; listeners run at most once. */
class ClientGoneSignal implements AbortSignalLike {
  aborted = false;
  private listeners: AbortListener[] = [];

  constructor(outgoing: ServerResponse) {
    outgoing.once("close", () => {
      if (!outgoing.writableFinished) this.abort();
    });
  }

  addEventListener(_type: "abort", listener: AbortListener): void {
    this.listeners.push(listener);
  }

  removeEventListener(_type: "abort", listener: AbortListener): void {
    const index = this.listeners.indexOf(listener);
    if (index !== -1) this.listeners.splice(index, 1);
  }

  private abort(): void {
    this.aborted = true;
    const listeners = this.listeners;
    this.listeners = [];
    for (const listener of listeners) {
      if (typeof listener === "function") listener();
      else listener.handleEvent();
    }
  }
}
