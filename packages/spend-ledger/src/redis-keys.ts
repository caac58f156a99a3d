/**
 * A budget window's pub/sub member (JSON `[rung, windowKey]`), its script keys, and when this
 * store last published its totals (`performance.now()` ms; undefined when never).
 */
export interface WindowRef {
  member: string;
  keys: string[];
  publishedAt: number | undefined;
}

/** Bound of the per-window caches; far above the windows a gateway has at once. */
const maxCachedWindows = 1024;

/**
 * Where a Redis spend store keeps its data: every key under one `{keyPrefix}` hash tag, so all
 * of them live in one Redis Cluster slot, as the scripts require.
 */
export interface RedisKeyLayout {
  /** The pub/sub channel on which stores publish a window's totals. */
  channel: string;
  /** The set of every window's member. */
  windowsKey: string;
  /** The records, a sorted set by time. */
  recordsKey: string;
  /** The records' minute sums, a hash (see redis-scripts.ts). */
  minuteSumsKey: string;
  /** The minute sums' fields, a sorted set by minute. */
  minuteFieldsKey: string;
  /** The batch script's eight keys for a window member (see redis-scripts.ts). */
  windowKeys(member: string): string[];
  /** The window's member and keys, built once per window, not on every operation. */
  windowOf(rung: string, windowKey: string): WindowRef;
}

/** The keys of a Redis spend store under `keyPrefix`. */
export function redisKeyLayout(keyPrefix: string): RedisKeyLayout {
  const base = `{${keyPrefix}}`;
  const channel = `${base}:events`;
  const windowsKey = `${base}:windows`;
  const recordsKey = `${base}:records`;
  const minuteSumsKey = `${base}:minutes`;
  const minuteFieldsKey = `${base}:minutes:fields`;

  const windowKeys = (member: string) => {
    const win = `${base}:win:${member}`;
    return [
      win,
      `${win}:live`,
      `${win}:amounts`,
      `${win}:done`,
      windowsKey,
      recordsKey,
      minuteSumsKey,
      minuteFieldsKey,
    ];
  };
  // A window's member and keys are built once, not on every operation. Windows are few (one per
  // rung per budget period); the map is emptied if it ever grows past that.
  const windowRefs = new Map<string, Map<string, WindowRef>>();
  const windowOf = (rung: string, windowKey: string): WindowRef => {
    let ofRung = windowRefs.get(rung);
    if (!ofRung) {
      if (windowRefs.size >= maxCachedWindows) windowRefs.clear();
      ofRung = new Map();
      windowRefs.set(rung, ofRung);
    }
    let ref = ofRung.get(windowKey);
    if (!ref) {
      if (ofRung.size >= maxCachedWindows) ofRung.clear();
      const member = JSON.stringify([rung, windowKey]);
      ref = { member, keys: windowKeys(member), publishedAt: undefined };
      ofRung.set(windowKey, ref);
    }
    return ref;
  };

  return {
    channel,
    windowsKey,
    recordsKey,
    minuteSumsKey,
    minuteFieldsKey,
    windowKeys,
    windowOf,
  };
}
