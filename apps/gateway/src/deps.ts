import type { QuotaState, QuotaWindow, UpstreamFailure } from "@planfirst/quota-cache";
import type { SpendLedger } from "@planfirst/spend-ledger";
import type { Logger } from "pino";
import type { GatewayConfig } from "./config/schema";
import type { ResolvedSecrets } from "./config/secrets";
import type { GatewayMetrics } from "./observability/metrics";
import type { UpstreamClient } from "./upstream";

/** The quota-cache calls the gateway makes (a `createQuotaCache` result satisfies it). */
export interface GatewayQuotaCache {
  observe(connectionId: string, windows: QuotaWindow[]): unknown;
  observeFailure(
    connectionId: string,
    failure: UpstreamFailure,
    options?: { model?: string },
  ): unknown;
  get(provider: string, connectionId: string, model?: string): QuotaState | undefined;
}

/** The cooldown-book calls the gateway makes (a `createCooldownBook` result satisfies it). */
export interface GatewayCooldowns {
  fail(connectionId: string, failure: UpstreamFailure, options?: { model?: string }): unknown;
  succeed(connectionId: string, options?: { model?: string }): unknown;
  isCoolingDown(connectionId: string, model?: string): boolean;
  cooldownUntil(connectionId: string, model?: string): number | string | null | undefined;
}

/** The spend-ledger calls the gateway makes. */
export type GatewayLedger = Pick<
  SpendLedger,
  | "reserve"
  | "settle"
  | "release"
  | "spentUsd"
  | "reservedUsd"
  | "budgetUsd"
  | "rungSpendUsd"
  | "currentWindowKey"
>;

/**
 * Everything `createApp` needs, injected: the validated config and the secrets read from the
 * environment, live stores, the upstream client, the clock, the logger and the metrics.
 */
export interface GatewayDeps {
  config: GatewayConfig;
  secrets: ResolvedSecrets;
  quotaCache: GatewayQuotaCache;
  cooldowns: GatewayCooldowns;
  ledger: GatewayLedger;
  upstream: UpstreamClient;
  /** Clock, epoch milliseconds. */
  now: () => number;
  logger: Logger;
  metrics: GatewayMetrics;
}
