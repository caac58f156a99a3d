import type { ClientStream, IrStreamError, IrUsage } from "../protocols";
import type { RoutedConnection } from "../routing/routing-table";
import type { UpstreamRequest } from "../upstream";
import { createSecretRedactor, type SecretRedactor } from "../upstream/secret-redactor";
import { sentCredential } from "./sent-credential";

/** The redactor of a connection that sends no credential: nothing to search for. */
const EMPTY = createSecretRedactor([]);

/** The last redactor built for a connection and the sent token it was built for. */
interface CachedRedactor {
  readonly sent: string | undefined;
  readonly redactor: SecretRedactor;
}

// Keyed by the routing table's connection object, so a reloaded table starts afresh and nothing
// outlives the table it belongs to.
const byConnection = new WeakMap<RoutedConnection, CachedRedactor>();

/**
 * The redactor for what `connection`'s upstream sends back to `sent`: the connection's static
 * credential and the credential the request actually carried (an exchanged or refreshed token
 * differs from the configured one). The exact values are searched for, which covers their
 * `Bearer …` and `x-api-key` forms. Built once per (connection, sent token) and reused while the
 * token stays the same; a keyless connection gets the shared empty redactor.
 */
export function redactorFor(connection: RoutedConnection, sent: UpstreamRequest): SecretRedactor {
  const token = sentCredential(sent.headers);
  if (token === undefined && connection.credential === null) return EMPTY;
  const cached = byConnection.get(connection);
  if (cached && cached.sent === token) return cached.redactor;
  const redactor = createSecretRedactor([connection.credential, token]);
  byConnection.set(connection, { sent: token, redactor });
  return redactor;
}

/**
 * `stream` with every piece of client text it produces passed through `redactor`'s stream
 * redactor, so a secret split across upstream chunks is still caught; the stream itself when
 * there is nothing to redact. The frame relay emits whole frames, which end in a line end, so
 * the redactor holds nothing back from a relayed stream and its bytes are unchanged unless a
 * secret was in them.
 */
export function redactingStream(stream: ClientStream, redactor: SecretRedactor): ClientStream {
  if (redactor.empty) return stream;
  return new RedactingStream(stream, redactor);
}

class RedactingStream implements ClientStream {
  private readonly redact;

  constructor(
    private readonly inner: ClientStream,
    redactor: SecretRedactor,
  ) {
    this.redact = redactor.stream();
  }

  push(chunk: Uint8Array | string): string {
    return this.redact.push(this.inner.push(chunk));
  }

  flush(): string {
    return this.redact.push(this.inner.flush()) + this.redact.flush();
  }

  fail(error: IrStreamError): string {
    return this.redact.push(this.inner.fail(error)) + this.redact.flush();
  }

  usage(): IrUsage | null {
    return this.inner.usage();
  }

  finished(): boolean {
    return this.inner.finished();
  }

  upstreamError(): IrStreamError | null {
    return this.inner.upstreamError();
  }
}
