import { existsSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { catalogMeta } from "@planfirst/billing-catalog";
import type { Logger } from "pino";
import { keylessListenProblem } from "./config/listen-address";
import { loadConfigFile } from "./config/load-config";
import type { ReloadOutcome } from "./config/reload-outcome";
import type { GatewayConfig } from "./config/schema";
import type { GatewayEnv } from "./config/secrets";
import type { OnboardingPoll } from "./connectors/connector-spec";
import { ConfigError } from "./errors";
import { createGateway, type Gateway } from "./gateway";

export { isLoopbackHost } from "./config/listen-address";

/** The config file used when none is given and `planfirst.yaml` does not exist. */
export const EXAMPLE_CONFIG_FILE = "planfirst.example.yaml";
/** The config file looked for in the working directory when none is given. */
export const DEFAULT_CONFIG_FILE = "planfirst.yaml";

/**
 * Connections the kernel may complete for the gateway before it accepts them (the system caps it
 * at `net.core.somaxconn`). Node's default, 511, overflows when clients open more connections at
 * once than the event loop accepts in one go (a team's agents after a restart, a thousand streams
 * opened together): each handshake past it is dropped, and the client's kernel retries it only
 * a second later.
 */
export const LISTEN_BACKLOG = 4096;

/** Options of `startServer`. */
export interface StartServerOptions {
  /**
   * YAML or JSON config file. Default `planfirst.yaml`, else `planfirst.example.yaml`. It is
   * also the file a reload re-reads (`SIGHUP`, `planfirst reload`, `server.reloadOnChange`).
   */
  configPath?: string;
  /**
   * An already validated config (wins over `configPath` at start; give `configPath` too, the
   * file it was read from, for reloads to re-read it).
   */
  config?: GatewayConfig;
  /** Overrides `server.port` (0 = any free port). */
  port?: number;
  /** Overrides `server.host`. */
  host?: string;
  /** Where `env:NAME` references are read. Default `process.env`. */
  env?: GatewayEnv;
  /** Clock, epoch milliseconds. Default `Date.now`. */
  now?: () => number;
  logger?: Logger;
  /** Start-up lines (address, catalog date, connections) go here. Default `console.log`. */
  print?: (line: string) => void;
  /** Start usage pollers. Default true. */
  pollUsage?: boolean;
  /** Random delay before each usage poll, in ms. Default 2 000. */
  usagePollJitterMs?: number;
  /** How a plan login's account setup is polled; see `CreateGatewayOptions.onboardingPoll`. */
  onboardingPoll?: OnboardingPoll;
}

/** A listening gateway. */
export interface RunningServer {
  readonly gateway: Gateway;
  /** Base URL, e.g. `http://127.0.0.1:4141`. */
  readonly url: string;
  readonly port: number;
  /**
   * Re-reads the config file and serves the next requests on it (see `Gateway.reload`); what
   * `SIGHUP` and `POST /v1/admin/reload` do. Never rejects.
   */
  reload(): Promise<ReloadOutcome>;
  /** Stops accepting connections and closes the gateway. */
  close(): Promise<void>;
}

/**
 * Loads the config, builds the gateway and listens with `node:http` (the completion routes served
 * straight from the listener, the rest through `@hono/node-server`). Refuses to bind to
 * a non-loopback address when no client keys are configured. Prints the listening address, the
 * catalog data date and one line per connection (billing class, rung, quota verified or not).
 */
export async function startServer(options: StartServerOptions = {}): Promise<RunningServer> {
  const print = options.print ?? ((line: string) => console.log(line));
  let config = options.config;
  let path = options.configPath;
  if (!config) {
    if (!path) {
      if (existsSync(DEFAULT_CONFIG_FILE)) {
        path = DEFAULT_CONFIG_FILE;
      } else {
        path = EXAMPLE_CONFIG_FILE;
        print(
          `no config file given and no ${DEFAULT_CONFIG_FILE} here: using ${EXAMPLE_CONFIG_FILE}`,
        );
      }
    }
    config = loadConfigFile(path);
  }
  const host = options.host ?? config.server.host;
  const port = options.port ?? config.server.port;
  const keyless = keylessListenProblem(host, config);
  if (keyless) {
    throw new ConfigError({
      code: "invalid_config",
      message: `refusing to listen on ${host}: no client keys are configured`,
      problems: [keyless],
    });
  }
  const gateway = createGateway({
    config,
    ...(path ? { configPath: path } : {}),
    listenHost: host,
    listenPort: port,
    env: options.env ?? process.env,
    now: options.now,
    logger: options.logger,
    pollUsage: options.pollUsage,
    usagePollJitterMs: options.usagePollJitterMs,
    onboardingPoll: options.onboardingPoll,
  });
  await gateway.ready();
  // No `upgrade` listener, on purpose: without one, Node hands a request carrying `Upgrade` to
  // the request listener as plain HTTP (`incoming.upgrade` false) and the connection stays
  // HTTP/1.1. A WebSocket handshake so reaches the app, which answers it 426 (see
  // `refuseWebSocketHandshakes`), and an `h2c` offer is served as the HTTP/1.1 request it also
  // is. A listener would be handed every such socket raw, `h2c` offers included.
  const server = createServer(
    {
      // A slow client may hold a socket only this long for its headers and its whole request;
      // the answer itself (a long stream) is not limited by either.
      headersTimeout: config.server.headersTimeoutMs,
      requestTimeout: config.server.requestTimeoutMs,
    },
    gateway.listener,
  );
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port, host, backlog: LISTEN_BACKLOG }, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `http://${shownHost}:${address.port}`;
  print(`planfirst gateway listening on ${url}`);
  print(`billing catalog ${catalogMeta.version}, data date ${catalogMeta.dataDate}`);
  for (const line of connectionLines(gateway)) print(line);
  return {
    gateway,
    url,
    port: address.port,
    reload: () => gateway.reload(),
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
      await gateway.close();
    },
  };
}

/** One line per connection: id, provider, billing class, rung(s), quota verified or not. */
export function connectionLines(gateway: Gateway): string[] {
  const { table } = gateway.context;
  const { quotaCache, now, config } = gateway.deps;
  // "Verified" means what the ladder means by it: a reading no older than maxStateAgeMs (Q4).
  const maxStateAgeMs = config.subscriptionLadder.maxStateAgeMs;
  return [...table.connections.values()].map((connection) => {
    const id = connection.config.id;
    const rungs = [...new Set(connection.config.models.map((m) => table.rungOf(id, m)))].join(",");
    if (connection.disabledReason !== null) {
      return `  ${id} (${connection.config.provider}): disabled, ${connection.disabledReason}`;
    }
    const state = quotaCache.get(connection.config.provider, id);
    const verified =
      state && state.status !== "unknown" && Date.parse(state.checkedAt) + maxStateAgeMs >= now()
        ? `quota verified (${state.remainingPercent ?? "?"}% left)`
        : "quota not verified yet";
    return `  ${id} (${connection.config.provider}): ${connection.billing.billing}/${connection.billing.overage}, rung ${rungs}, ${verified}`;
  });
}
