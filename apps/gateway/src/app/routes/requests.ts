import { Hono } from "hono";
import { GatewayError } from "../../errors";
import {
  parseRequestFilter,
  type RequestFilterQuery,
} from "../../observability/request-log/request-filter";
import type { RequestRecord } from "../../observability/request-log/request-record";
import { requestFilterForClient, seesEveryRequest } from "../../status/requests-for-client";
import { REQUESTS_TABLE_LIMIT, type RequestsTable } from "../../status/requests-table";
import type { AppContext, GatewayEnv } from "../app-context";
import type { ClientIdentity } from "../auth/client-keys";
import { createStatusClients } from "../auth/status-client";

/** Records a JSON read returns when `limit` is not given. */
const DEFAULT_REQUESTS_LIMIT = 100;
/** Most records one JSON read returns. */
export const MAX_REQUESTS_LIMIT = 1_000;

/**
 * `GET /v1/requests`: the request log, newest first, filtered by `key`, `model` (asked or
 * served), `rung`, `status` (`429` or `4xx`), `since`, `until` (ISO-8601 or epoch ms) and
 * `limit`. JSON `{ object: "list", enabled, data }` by default (`limit` 100, at most 1 000);
 * `format=jsonl` streams one record per line, every matching record the log keeps unless
 * `limit` says fewer (the export `planfirst simulate --from` reads). A key that sees only its
 * own requests gets only those. Takes a client key or the status page's session cookie.
 */
export function requestsRoutes(app: AppContext): Hono<GatewayEnv> {
  const clients = createStatusClients(app);
  const maxRecords = app.deps.config.server.requestLog.maxRecords;
  return new Hono<GatewayEnv>().get("/v1/requests", async (c) => {
    const client = clients.requireClient(c);
    const format = c.req.query("format") ?? "json";
    if (format !== "json" && format !== "jsonl") {
      throw new GatewayError({
        code: "invalid_request",
        message: "format: expected json or jsonl",
        details: { param: "format" },
      });
    }
    const query = c.req.query() as RequestFilterQuery;
    const filter = parseRequestFilter(
      query,
      format === "jsonl"
        ? { defaultLimit: maxRecords, maxLimit: maxRecords }
        : {
            defaultLimit: Math.min(DEFAULT_REQUESTS_LIMIT, maxRecords),
            maxLimit: Math.min(MAX_REQUESTS_LIMIT, maxRecords),
          },
    );
    const scoped = requestFilterForClient(filter, client);
    c.header("cache-control", "no-store");
    if (format === "json") {
      const records = scoped ? await app.requestLog.query(scoped) : [];
      return c.json({ object: "list", enabled: app.requestLog.enabled, data: records });
    }
    const pages = scoped ? app.requestLog.pages(scoped)[Symbol.asyncIterator]() : undefined;
    // The first page is read before the answer starts, so a store that cannot be read is an
    // error answer rather than a cut export.
    const first = pages ? await pages.next() : undefined;
    return new Response(jsonLines(first, pages), {
      headers: {
        "content-type": "application/x-ndjson; charset=utf-8",
        "cache-control": "no-store",
      },
    });
  });
}

/**
 * The status page's request table for `client`, filtered by the page's query (`key`, `model`,
 * `rung`, `status`): the newest {@link REQUESTS_TABLE_LIMIT} it may see. A filter that does not
 * parse, or a log that cannot be read, leaves the table empty with the reason, never the page.
 */
export async function requestsTableFor(
  app: AppContext,
  client: ClientIdentity,
  query: Readonly<Record<string, string>>,
): Promise<RequestsTable> {
  const fields: RequestFilterQuery = {};
  for (const name of ["key", "model", "rung", "status"] as const) {
    if (query[name]) fields[name] = query[name];
  }
  const table = {
    query: fields,
    everyKey: seesEveryRequest(client),
    enabled: app.requestLog.enabled,
  };
  try {
    const filter = parseRequestFilter(fields, {
      defaultLimit: REQUESTS_TABLE_LIMIT,
      maxLimit: REQUESTS_TABLE_LIMIT,
    });
    const scoped = requestFilterForClient(filter, client);
    const records = scoped ? await app.requestLog.query(scoped) : [];
    return { ...table, records, problem: null };
  } catch (error) {
    const problem = GatewayError.isInstance(error)
      ? error.message
      : "the request log could not be read just now";
    return { ...table, records: [], problem };
  }
}

/** The pages as a stream of JSON lines, a page per chunk; an error after the first cuts it. */
function jsonLines(
  first: IteratorResult<RequestRecord[]> | undefined,
  pages: AsyncIterator<RequestRecord[]> | undefined,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let next = first;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (next === undefined || next.done || pages === undefined) {
        controller.close();
        return;
      }
      let text = "";
      for (const record of next.value) text += `${JSON.stringify(record)}\n`;
      controller.enqueue(encoder.encode(text));
      next = await pages.next();
    },
    async cancel() {
      await pages?.return?.();
    },
  });
}
