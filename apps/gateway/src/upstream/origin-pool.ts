import { Client } from "undici";
import { ignoreError } from "./undici-errors";
import { UpstreamError } from "./upstream-error";

/**
 * A call as {@link OriginPool} holds it (an attempt's dispatch handler): started on a client, or
 * given up while it waits for one.
 */
interface PooledCall {
  /** True once the call has its response headers or was given up: a waiting one is skipped. */
  readonly settled: boolean;
  start(client: Client, pool: OriginPool): void;
  giveUp(error: UpstreamError): void;
}

/**
 * The sockets of one origin: undici `Client`s of one socket each (at most `maxSockets`), a
 * request of ours on each at most. undici's own `Pool` counts a `Client` busy until one
 * `setImmediate` after its response ended (`onMessageComplete()` in client-h1.js resumes the client then, and
 * `Pool`'s `kGetDispatcher` skips a client until its `drain`), so a call sent as soon as the
 * previous one finished opened a second socket and sequential calls alternated two. Here a
 * finished request frees its `Client` at once; the next request waits in that client's queue
 * for the turn undici wants, on the same socket. Free clients are taken last-in first-out, so the
 * busiest stay warm and idle ones age out under undici's keep-alive timeout. With a `maxSockets`
 * set, calls beyond it wait here, their header timers not yet running, and one given up (its
 * signal) while waiting is dropped without reaching undici.
 */
export class OriginPool {
  private readonly clients = new Set<Client>();
  private readonly idle: Client[] = [];
  private readonly waiting: PooledCall[] = [];

  constructor(
    readonly origin: string,
    private readonly options: Client.Options,
    private readonly maxSockets: number,
  ) {}

  /** Clients held now, busy or idle (each has one socket at most). */
  get size(): number {
    return this.clients.size;
  }

  dispatch(call: PooledCall): void {
    let client = this.idle.pop();
    if (!client) {
      if (this.clients.size >= this.maxSockets) {
        this.waiting.push(call);
        return;
      }
      client = new Client(this.origin, this.options);
      client.on("disconnect", this.onSocketGone);
      client.on("connectionError", this.onSocketGone);
      this.clients.add(client);
    }
    call.start(client, this);
  }

  /**
   * An idle client whose socket closed (keep-alive timeout, the server's close, a cut body) or
   * never connected is dropped: with no cap, a burst of a thousand streams would otherwise leave
   * a thousand socketless clients behind for good. undici fails a client's request before it
   * reports the socket gone, so a client that just served one is idle by then; a busy one keeps
   * its queued request, which undici writes on a new socket.
   */
  private readonly onSocketGone = (_origin: unknown, targets: readonly unknown[]): void => {
    for (const target of targets) {
      const index = this.idle.indexOf(target as Client);
      if (index === -1) continue;
      this.idle.splice(index, 1);
      this.clients.delete(target as Client);
      (target as Client).destroy().catch(ignoreError);
    }
  };

  /** A request of ours on `client` is over: the client takes the next waiting call, or idles. */
  release(client: Client): void {
    for (let next = this.waiting.shift(); next; next = this.waiting.shift()) {
      if (next.settled) continue;
      next.start(client, this);
      return;
    }
    this.idle.push(client);
  }

  destroy(): void {
    for (const call of this.waiting.splice(0)) {
      call.giveUp(
        new UpstreamError({
          code: "network",
          origin: this.origin,
          message: `upstream client for ${this.origin} closed`,
        }),
      );
    }
    for (const client of this.clients) client.destroy().catch(ignoreError);
    this.clients.clear();
    this.idle.length = 0;
  }
}
