import { GatewayError } from "../../errors";
import type { RequestRecord } from "./request-record";

/**
 * Which records a read returns: every given field must match. Records come newest first (the
 * order they were written, which is the order requests ended), at most `limit` of them.
 */
export interface RequestFilter {
  /** Client key id. */
  key?: string;
  /** A model id, matched against the model asked and the model served. */
  model?: string;
  rung?: string;
  /** HTTP status answered, inclusive range (`429` is 429..429, `4xx` is 400..499). */
  statusMin?: number;
  statusMax?: number;
  /** Arrival at or after this instant, epoch milliseconds. */
  sinceMs?: number;
  /** Arrival before this instant, epoch milliseconds. */
  untilMs?: number;
  /** Most records returned. */
  limit: number;
}

/** The query parameters `GET /v1/requests` reads, as strings. */
export type RequestFilterQuery = Partial<
  Record<"key" | "model" | "rung" | "status" | "since" | "until" | "limit", string>
>;

/**
 * The filter a query asks for. `status` is a code (`429`) or a class (`4xx`); `since` and
 * `until` are ISO-8601 instants or epoch milliseconds; `limit` is a whole number from 1 to
 * `maxLimit`, `defaultLimit` when absent. Throws `GatewayError` `invalid_request` naming the
 * parameter and what it accepts.
 */
export function parseRequestFilter(
  query: RequestFilterQuery,
  limits: { defaultLimit: number; maxLimit: number },
): RequestFilter {
  const filter: RequestFilter = { limit: limits.defaultLimit };
  if (query.key) filter.key = query.key;
  if (query.model) filter.model = query.model;
  if (query.rung) filter.rung = query.rung;
  if (query.status) {
    const status = query.status.trim().toLowerCase();
    const exact = /^[1-5]\d\d$/.test(status);
    const klass = /^[1-5]xx$/.test(status);
    if (!exact && !klass) {
      throw invalid("status", "expected an HTTP status (429) or a class (2xx, 4xx, 5xx)");
    }
    const base = exact ? Number(status) : Number(status[0]) * 100;
    filter.statusMin = base;
    filter.statusMax = exact ? base : base + 99;
  }
  if (query.since) filter.sinceMs = instant("since", query.since);
  if (query.until) filter.untilMs = instant("until", query.until);
  if (query.limit) {
    const limit = Number(query.limit);
    if (!/^\d+$/.test(query.limit) || limit < 1 || limit > limits.maxLimit) {
      throw invalid("limit", `expected a whole number from 1 to ${limits.maxLimit}`);
    }
    filter.limit = limit;
  }
  return filter;
}

/** True when `record` matches every field `filter` sets (its `limit` aside). */
export function matchesRequestFilter(record: RequestRecord, filter: RequestFilter): boolean {
  if (filter.key !== undefined && record.keyId !== filter.key) return false;
  if (
    filter.model !== undefined &&
    record.modelAsked !== filter.model &&
    record.modelServed !== filter.model
  ) {
    return false;
  }
  if (filter.rung !== undefined && record.rung !== filter.rung) return false;
  if (filter.statusMin !== undefined && record.status < filter.statusMin) return false;
  if (filter.statusMax !== undefined && record.status > filter.statusMax) return false;
  if (filter.sinceMs !== undefined || filter.untilMs !== undefined) {
    const atMs = Date.parse(record.at);
    if (filter.sinceMs !== undefined && !(atMs >= filter.sinceMs)) return false;
    if (filter.untilMs !== undefined && !(atMs < filter.untilMs)) return false;
  }
  return true;
}

function instant(name: string, value: string): number {
  const ms = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  if (!Number.isFinite(ms))
    throw invalid(name, "expected an ISO-8601 instant or epoch milliseconds");
  return ms;
}

function invalid(parameter: string, message: string): GatewayError {
  return new GatewayError({
    code: "invalid_request",
    message: `${parameter}: ${message}`,
    details: { param: parameter },
  });
}
