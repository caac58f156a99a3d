import type { Dispatcher } from "undici";
import { UpstreamError } from "./upstream-error";
import type {
  AbortSignalLike,
  ChunkReader,
  UpstreamRequest,
  UpstreamResponse,
} from "./upstream-types";

/** Bodies up to this size are drained on `discard()` so the keep-alive socket can be reused. Bytes. */
const DRAIN_LIMIT_BYTES = 64 * 1024;

/** What the body is being used for: not yet, `text()`, `chunks()` or `discard()`'s drain. */
type BodyMode = "unread" | "text" | "chunks" | "drain";

/**
 * An upstream response over undici's dispatch callbacks. Chunks that arrive with no reader
 * waiting are queued and undici is paused (`controller.pause()`, which stops reading the
 * socket), so a slow reader holds the upstream back; a waiting reader resumes it. The chunk
 * that completes a declared `content-length` does not pause it (nothing is left to hold back).
 */
export class UndiciUpstreamResponse implements UpstreamResponse {
  private started = false;
  private mode: BodyMode = "unread";
  /** True while a reader waits for the upstream: only then does the idle clock run. */
  waiting = false;
  idleTimer: NodeJS.Timeout | undefined;
  readonly idleTimeoutMs: number | undefined;
  private readonly signal: AbortSignalLike | undefined;
  queue: Buffer[] = [];
  private drainedBytes = 0;
  /** Body bytes still to come by the declared `content-length`; Infinity without one. */
  private bodyBytesLeft: number;
  failure: UpstreamError | null = null;
  ended = false;
  private resolveText: ((text: string) => void) | null = null;
  private rejectText: ((error: UpstreamError) => void) | null = null;
  resolveNext: ((result: IteratorResult<Uint8Array, undefined>) => void) | null = null;
  rejectNext: ((error: UpstreamError) => void) | null = null;

  constructor(
    readonly controller: Dispatcher.DispatchController,
    readonly status: number,
    readonly headers: Record<string, string | string[] | undefined>,
    request: UpstreamRequest,
    readonly origin: string,
  ) {
    this.signal = request.signal;
    this.signal?.addEventListener("abort", this, { once: true });
    const declared = Number(headers["content-length"]);
    this.bodyBytesLeft = Number.isFinite(declared) ? declared : Number.POSITIVE_INFINITY;
    const idleTimeoutMs = request.idleTimeoutMs;
    this.idleTimeoutMs = idleTimeoutMs;
    if (idleTimeoutMs !== undefined && idleTimeoutMs > 0) {
      this.idleTimer = setTimeout(onIdle, idleTimeoutMs, this);
      this.idleTimer.unref();
    }
  }

  /** The signal fired while the body is being received. */
  handleEvent(): void {
    const { origin } = this;
    this.controller.abort(
      new UpstreamError({ code: "aborted", origin, message: `request to ${origin} aborted` }),
    );
  }

  cleanup(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.signal?.removeEventListener("abort", this);
  }

  onData(chunk: Buffer): void {
    this.idleTimer?.refresh();
    this.bodyBytesLeft -= chunk.length;
    switch (this.mode) {
      case "text":
        this.queue.push(chunk);
        return;
      case "drain":
        this.drainedBytes += chunk.length;
        if (this.drainedBytes > DRAIN_LIMIT_BYTES) {
          // Not from inside undici's parser callback: an abort there can meet the end of the
          // message in the same buffer. Pausing stops the parser; the cut follows at once.
          this.controller.pause();
          queueMicrotask(() => this.controller.abort(cutBody()));
        }
        return;
      default: {
        const resolve = this.resolveNext;
        if (resolve) {
          this.resolveNext = null;
          this.rejectNext = null;
          this.waiting = false;
          resolve({ done: false, value: chunk });
          return;
        }
        this.queue.push(chunk);
        // Not on the last bytes of a declared length: nothing is left to hold back, and undici 7
        // asserts (and takes the process down) when a socket ends while its parser is paused,
        // which a `Connection: close` answer does right after those bytes.
        if (this.bodyBytesLeft > 0) this.controller.pause();
      }
    }
  }

  onEnd(): void {
    this.ended = true;
    this.waiting = false;
    this.cleanup();
    if (this.mode === "text") {
      const resolve = this.resolveText;
      this.resolveText = null;
      this.rejectText = null;
      resolve?.(this.takeText());
    } else if (this.mode === "chunks") {
      this.deliver();
    }
  }

  onError(error: unknown): void {
    if (this.ended || this.failure) return;
    this.failure = this.bodyError(error);
    this.waiting = false;
    this.cleanup();
    if (this.mode === "text") {
      const reject = this.rejectText;
      this.resolveText = null;
      this.rejectText = null;
      this.queue = [];
      reject?.(this.failure);
    } else if (this.mode === "chunks") {
      this.deliver();
    }
  }

  /** Wraps a body failure as an `UpstreamError`. */
  bodyError(error: unknown): UpstreamError {
    if (UpstreamError.isInstance(error)) return error;
    const { origin } = this;
    return new UpstreamError({
      code: "network",
      origin,
      message: `connection to ${origin} closed mid-body`,
      cause: error,
    });
  }

  private takeText(): string {
    const chunks = this.queue;
    this.queue = [];
    if (chunks.length === 1) return chunks[0]!.toString("utf8");
    return Buffer.concat(chunks).toString("utf8");
  }

  text(): Promise<string> {
    if (this.started) return Promise.reject(new Error("the upstream body can be read only once"));
    this.started = true;
    this.mode = "text";
    if (this.failure) return Promise.reject(this.failure);
    if (this.ended) return Promise.resolve(this.takeText());
    return new Promise<string>((resolve, reject) => {
      this.resolveText = resolve;
      this.rejectText = reject;
      this.waiting = true;
      this.idleTimer?.refresh();
      this.controller.resume();
    });
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  chunks(): ChunkReader {
    if (this.started) throw new Error("the upstream body can be read only once");
    this.started = true;
    this.mode = "chunks";
    return new ChunkQueueReader(this);
  }

  /** Hands the pending `next()` what is ready: a chunk, the failure or the end. */
  deliver(): void {
    const resolve = this.resolveNext;
    const reject = this.rejectNext;
    if (!resolve || !reject) return;
    if (this.queue.length === 0 && !this.ended && !this.failure) return;
    this.resolveNext = null;
    this.rejectNext = null;
    this.waiting = false;
    if (this.queue.length > 0) resolve({ done: false, value: this.queue.shift()! });
    else if (this.failure) reject(this.failure);
    else resolve({ done: true, value: undefined });
  }

  /**
   * As undici's `body.dump({ limit })`: an unread body of at most 64 KiB (declared or, without a
   * length, as it arrives) is read to its end so the socket goes back to the pool; a larger or
   * half-read body is cut, which closes the socket.
   */
  discard(): void {
    this.cleanup();
    if (this.ended || this.failure) {
      this.queue = [];
      return;
    }
    const length = Number(this.headers["content-length"]);
    if (this.started || (Number.isFinite(length) && length > DRAIN_LIMIT_BYTES)) {
      this.controller.abort(cutBody());
      return;
    }
    for (const chunk of this.queue) this.drainedBytes += chunk.length;
    this.queue = [];
    if (this.drainedBytes > DRAIN_LIMIT_BYTES) {
      this.controller.abort(cutBody());
      return;
    }
    this.started = true;
    this.mode = "drain";
    this.controller.resume();
  }
}

/** The reason a discarded body is cut; nobody reads it. */
function cutBody(): Error {
  return new Error("upstream body discarded");
}

/** `UpstreamResponse.chunks()`: pulls from the response's queue, resuming the upstream on demand. */
class ChunkQueueReader implements ChunkReader {
  constructor(private readonly response: UndiciUpstreamResponse) {}

  next(): Promise<IteratorResult<Uint8Array, undefined>> {
    const response = this.response;
    if (response.queue.length > 0) {
      return Promise.resolve({ done: false, value: response.queue.shift()! });
    }
    if (response.failure) return Promise.reject(response.failure);
    if (response.ended) return Promise.resolve({ done: true, value: undefined });
    return new Promise((resolve, reject) => {
      response.resolveNext = resolve;
      response.rejectNext = reject;
      response.waiting = true;
      response.idleTimer?.refresh();
      response.controller.resume();
    });
  }
}

function onIdle(response: UndiciUpstreamResponse): void {
  // Only time the upstream: while nobody is waiting for a chunk the clock does not run.
  if (!response.waiting) {
    response.idleTimer?.refresh();
    return;
  }
  const { origin } = response;
  response.controller.abort(
    new UpstreamError({
      code: "timeout",
      origin,
      message: `no data from ${origin} for ${response.idleTimeoutMs} ms mid-body`,
    }),
  );
}
