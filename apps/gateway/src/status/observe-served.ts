import type { Dispatcher } from "../dispatch/dispatcher";
import { wrapDispatch } from "../dispatch/wrap-dispatch";
import type { StatusTracker } from "./status-tracker";

/**
 * The dispatcher with an observer on its answers: each request it serves (a reply carrying the
 * `x-planfirst-rung` receipt, streams included once committed) is told to the status tracker
 * with the routing id the client asked for. Failures are not served and are not told.
 */
export function observeServed(
  dispatcher: Dispatcher,
  tracker: Pick<StatusTracker, "served">,
  now: () => number,
): Dispatcher {
  return wrapDispatch(dispatcher, async (request) => {
    const reply = await dispatcher.dispatch(request);
    const rung = reply.headers["x-planfirst-rung"];
    if (rung) {
      tracker.served({
        modelId: request.modelId,
        rung,
        connection: reply.headers["x-planfirst-connection"] ?? "unknown",
        model: reply.headers["x-planfirst-model"] ?? "unknown",
        atMs: now(),
      });
    }
    return reply;
  });
}
