import { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { isAdmin } from "../../routing/client-identity";
import { cacheReadsLastHour } from "../../status/cache-reads";
import type { GatewayStatus } from "../../status/gateway-status";
import { keyRungSpendUsd } from "../../status/key-spend";
import { CHART_SPAN_MS } from "../../status/status-charts";
import type { StatusFeed, StatusPush } from "../../status/status-feed";
import { historyForClient, statusForClient } from "../../status/status-for-client";
import { renderLoginPage, renderStatusMain, renderStatusPage } from "../../status/status-page";
import { clearedSessionCookie, sessionCookie } from "../../status/status-session";
import { statusSnapshot } from "../../status/status-snapshot";
import type { AppContext, GatewayEnv } from "../app-context";
import type { ClientIdentity } from "../auth/client-keys";
import { createStatusClients } from "../auth/status-client";
import { requestsTableFor } from "./requests";

/** Paths the status routes authenticate themselves (they accept the session cookie too). */
const STATUS_PATHS = new Set([
  "/",
  "/status/login",
  "/status/logout",
  "/v1/status",
  "/v1/status/events",
  "/v1/status/history",
  "/v1/requests",
]);

/**
 * True for the paths whose routes check the client key themselves: the status page, its login,
 * `/v1/status` and its event stream and history, and `/v1/requests` (the page's request table). They take `Authorization: Bearer`, `x-api-key`
 * or the page's session cookie; `HEAD /` answers a bare 200 to anyone (a connectivity probe).
 */
export function isStatusPath(path: string): boolean {
  return STATUS_PATHS.has(path);
}

/**
 * The status routes: `GET /` (the page, or its login form when keys are configured and none was
 * presented), `HEAD /` (bare 200, no key: clients probe it), `POST /status/login` (form field
 * `key`; sets the HttpOnly, SameSite=Strict session cookie and redirects to `/`),
 * `POST /status/logout`, `GET /v1/status` (JSON, read by the CLI), `GET /v1/status/events`
 * (server-sent events from `feed`: `status` on each change, comments as heartbeat; the stream
 * ends when the feed closes) and `GET /v1/status/history` (the last 24 h of five-minute buckets).
 */
export function statusRoutes(app: AppContext, feed: StatusFeed): Hono<GatewayEnv> {
  const { sessions, clientOf, requireClient } = createStatusClients(app);

  /** `status` as `client` sees it: all of it for an admin key, its own spend for a client key. */
  async function viewOf(status: GatewayStatus, client: ClientIdentity): Promise<GatewayStatus> {
    if (isAdmin(client)) return status;
    const [spendUsd, cacheReads] = await Promise.all([
      keyRungSpendUsd(app.deps, client.id),
      cacheReadsLastHour(app, Date.parse(status.evaluatedAt), client.id),
    ]);
    return statusForClient(status, client, { spendUsd, cacheReads });
  }

  /** The feed's rendering for an admin key; for a client key, one of its own view. */
  async function htmlFor(push: StatusPush, client: ClientIdentity): Promise<string> {
    if (isAdmin(client)) return push.html;
    const nowMs = Date.parse(push.now);
    const history = await app.status.history(nowMs - CHART_SPAN_MS - 900_000, nowMs + 1);
    return renderStatusMain(await viewOf(push.status, client), historyForClient(history, client));
  }

  return new Hono<GatewayEnv>()
    .get("/", async (c) => {
      // HEAD / is a connectivity probe (Claude Code sends one): a bare 200, no key needed.
      if (c.req.method === "HEAD") return c.body(null);
      // Without a key the answer is the login form, sent as 401 like every other keyed endpoint
      // (scripts see that a key is needed; a browser shows the form). The form is the page's
      // content, not an error mapping, so it is rendered here rather than in onError.
      const client = clientOf(c);
      if (!client) return c.html(renderLoginPage(null), 401);
      const push = await feed.current();
      const nowMs = Date.parse(push.now);
      const history = await app.status.history(nowMs - CHART_SPAN_MS - 900_000, nowMs + 1);
      const page = renderStatusPage(
        await viewOf(push.status, client),
        historyForClient(history, client),
        await requestsTableFor(app, client, c.req.query()),
      );
      return c.html(page, 200, {
        "cache-control": "no-store",
      });
    })
    .post("/status/login", async (c) => {
      if (app.verifier.open) return c.redirect("/", 303);
      const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
      const key = typeof form.key === "string" ? form.key.trim() : "";
      if (!key || !app.verifier.verify(undefined, key)) {
        return c.html(renderLoginPage("That key is not a client key of this gateway."), 401);
      }
      const secure =
        new URL(c.req.url).protocol === "https:" || c.req.header("x-forwarded-proto") === "https";
      c.header("set-cookie", sessionCookie(sessions.tokenOf(key), secure));
      c.header("cache-control", "no-store");
      return c.redirect("/", 303);
    })
    .post("/status/logout", (c) => {
      c.header("set-cookie", clearedSessionCookie());
      return c.redirect("/", 303);
    })
    .get("/v1/status", async (c) => {
      const client = requireClient(c);
      return c.json(await viewOf(await statusSnapshot(app, app.status), client));
    })
    .get("/v1/status/history", async (c) => {
      const client = requireClient(c);
      const nowMs = app.deps.now();
      const buckets = await app.status.history(nowMs - CHART_SPAN_MS, nowMs + 1);
      return c.json({ buckets: historyForClient(buckets, client) });
    })
    .get("/v1/status/events", (c) => {
      const client = requireClient(c);
      c.header("cache-control", "no-store");
      c.header("x-accel-buffering", "no");
      return streamSSE(c, async (stream) => {
        // Errors inside the stream never reach onError: the stream just ends and the page's
        // EventSource reconnects.
        let wake: (() => void) | undefined;
        const ended = new Promise<void>((resolve) => {
          wake = resolve;
        });
        const queue: string[] = [];
        let writing = false;
        const drain = async () => {
          if (writing) return;
          writing = true;
          try {
            while (queue.length > 0 && !stream.aborted) await stream.write(queue.shift()!);
          } catch {
            wake?.();
          } finally {
            writing = false;
          }
        };
        const unsubscribe = feed.subscribe({
          push(push) {
            void htmlFor(push, client).then((html) => {
              const data = JSON.stringify({ now: push.now, html });
              queue.length = 0;
              queue.push(`event: status\ndata: ${data}\n\n`);
              void drain();
            });
          },
          heartbeat() {
            queue.push(": heartbeat\n\n");
            void drain();
          },
          end() {
            wake?.();
          },
        });
        stream.onAbort(() => wake?.());
        try {
          await stream.write("retry: 2000\n\n");
          await ended;
        } finally {
          unsubscribe();
        }
      });
    });
}
