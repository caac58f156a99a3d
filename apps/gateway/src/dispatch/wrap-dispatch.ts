import type { Dispatcher } from "./types";

/**
 * `inner` with its `dispatch` replaced by `dispatch` (which calls `inner.dispatch` around its own
 * work): the routing table, ladder options, live state, slots and waiting rooms stay the inner
 * dispatcher's, so a wrapper adds behaviour to requests and nothing else.
 */
export function wrapDispatch(inner: Dispatcher, dispatch: Dispatcher["dispatch"]): Dispatcher {
  return {
    table: inner.table,
    ladderOptions: inner.ladderOptions,
    live: inner.live,
    slots: inner.slots,
    waiting: inner.waiting,
    dispatch,
  };
}
