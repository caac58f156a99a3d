import { createLazyRedis } from "../../redis-client";
import { matchesRequestFilter, type RequestFilter } from "./request-filter";
import { READ_PAGE, type RequestLogStore, scanPassedSince } from "./request-log-store";
import type { RequestRecord } from "./request-record";
import { parseStoredRecord } from "./stored-record";

/** Options of {@link createRedisRequestLogStore}. */
interface RedisRequestLogStoreOptions {
  url: string;
  /** The stream's key, e.g. the gateway's `storage.keyPrefix` + `requests`. */
  key: string;
  /** Most records kept: the stream is capped near it on every write, and reads stop there. */
  maxRecords: number;
}

/** Most pages one prune reads, so a prune is short even on a long-neglected stream. */
const PRUNE_PAGES = 20;

type StreamEntry = [id: string, fields: string[]];

/**
 * Appends each record to stream KEYS[1] (field `r`, capped near ARGV[1]) and its id to its client
 * key's index stream, KEYS[5 + slot], and, when it was not served (ARGV flag '1': a status
 * outside 2xx), to the index of unserved records, KEYS[5]; every index capped the same. One
 * record per ARGV triple (slot, flag, record). Adds each index written to the set KEYS[2]. Keeps
 * in KEYS[3] the id of the first record ever indexed by key, and in KEYS[4] the first ever
 * indexed by status (the records before each, written by an earlier version, are in no such
 * index). One script call per batch.
 */
const appendScript = `
local first
local unserved = false
for i = 2, #ARGV, 3 do
  local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'r', ARGV[i + 2])
  redis.call('XADD', KEYS[5 + tonumber(ARGV[i])], 'MAXLEN', '~', ARGV[1], id, 'i', '')
  if ARGV[i + 1] == '1' then
    redis.call('XADD', KEYS[5], 'MAXLEN', '~', ARGV[1], id, 'i', '')
    unserved = true
  end
  first = first or id
end
for k = 6, #KEYS do redis.call('SADD', KEYS[2], KEYS[k]) end
if unserved then redis.call('SADD', KEYS[2], KEYS[5]) end
if first then
  redis.call('SET', KEYS[3], first, 'NX')
  redis.call('SET', KEYS[4], first, 'NX')
end
return (#ARGV - 1) / 3
`;

/**
 * The oldest id a reader of stream KEYS[1] may see, as the Lua function `floorOf(cap)`: the
 * id of the newest `cap`-th entry when the stream holds more (it is trimmed near its cap, so
 * the oldest few are read to find it), else its first entry's; '' when it is empty.
 */
const floorLua = `
local function floorOf(cap)
  local length = redis.call('XLEN', KEYS[1])
  if length == 0 then return '' end
  local skip = math.max(0, length - cap)
  local head = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', skip + 1)
  return head[#head][1]
end
local function before(a, b)
  local am, as = string.match(a, '^(%d+)-(%d+)$')
  local bm, bs = string.match(b, '^(%d+)-(%d+)$')
  am, bm = tonumber(am), tonumber(bm)
  if am ~= bm then return am < bm end
  return tonumber(as) < tonumber(bs)
end
`;

/**
 * Reads up to ARGV[2] ids of index stream KEYS[2] newest first below ARGV[1] ('+', or '(' and
 * an id), and the entry of stream KEYS[1] each names, down to the oldest entry a reader may see
 * (the newest ARGV[3]). Answers { those entries, the ids read, the last id read ('' when none),
 * 1 when it reached that oldest entry, the oldest id a reader may see ('' when the stream is
 * empty), KEYS[3], the first id indexed ('' when none) }.
 */
const indexScanScript = `${floorLua}
local floor = floorOf(tonumber(ARGV[3]))
local ids = redis.call('XREVRANGE', KEYS[2], ARGV[1], '-', 'COUNT', ARGV[2])
local entries, last, reached = {}, '', 0
for _, index in ipairs(ids) do
  local id = index[1]
  if floor == '' or before(id, floor) then reached = 1 break end
  last = id
  local entry = redis.call('XRANGE', KEYS[1], id, id)[1]
  if entry then entries[#entries + 1] = entry end
end
return { entries, #ids, last, reached, floor, redis.call('GET', KEYS[3]) or '' }
`;

const appendCommand = "planfirstRequestLogAppend";
const indexScanCommand = "planfirstRequestLogIndexScan";

type AppendCommand = (...keysAndArgs: string[]) => Promise<number>;
type IndexScanCommand = (
  stream: string,
  index: string,
  indexedFrom: string,
  below: string,
  count: number,
  cap: number,
) => Promise<
  [
    entries: StreamEntry[],
    read: number,
    lastId: string,
    reachedFloor: number,
    floorId: string,
    indexedFromId: string,
  ]
>;

/**
 * The request log in one Redis stream shared by every replica: each record is an entry
 * (`XADD … MAXLEN ~ maxRecords`, field `r` = the record as JSON, a batch in one script call),
 * so the stream trims itself as it is written. Reads go newest first (`XREVRANGE`) and never
 * look past the newest `maxRecords` entries, which makes the approximate cap exact for readers.
 *
 * Each record's id is also added to an index stream of its client key (`<base>:key:<key id>`,
 * under the stream's hash tag, so one Cluster slot holds them all), so a read for one key (a
 * client key's own view, polled by its status page) reads that key's entries, not every entry:
 * of 100,000 records, a key's ten in 1–8 ms of the gateway's CPU and under 1 ms of Redis, where
 * reading every entry took 0.6–1 s and 40–64 ms. It costs each record a second XADD. The id of
 * a record not served (a status outside 2xx) also goes to `<base>:unserved`, so a view of the
 * failures (`status=5xx`, `429`, `4xx`: what an operator filters the status page by, and rare
 * in a healthy log) reads those, not every entry; a served record costs it nothing.
 * Records written before an index existed (an earlier version) are read by the scan below the
 * first one indexed. While a replica of an earlier version still writes, its records are in no
 * index, and the views an index serves miss them until it stops.
 */
export function createRedisRequestLogStore(options: RedisRequestLogStoreOptions): RequestLogStore {
  // A failure reaches the log through the command that failed (it warns once per outage).
  const { client, connected } = createLazyRedis(options.url, { maxRetriesPerRequest: 2 });
  const { key, maxRecords } = options;
  const base = hasHashTag(key) ? key : `{${key}}`;
  const indexOf = (keyId: string) => `${base}:key:${keyId}`;
  const indexesKey = `${base}:keys`;
  const indexedFromKey = `${base}:indexed-from`;
  const unservedKey = `${base}:unserved`;
  const unservedFromKey = `${base}:unserved-from`;
  // Its number of keys goes first in each call: one index per client key in the batch.
  client.defineCommand(appendCommand, { lua: appendScript });
  client.defineCommand(indexScanCommand, { numberOfKeys: 3, lua: indexScanScript });
  const appendAll = (client as unknown as Record<string, AppendCommand>)[appendCommand]!;
  const indexScan = (client as unknown as Record<string, IndexScanCommand>)[indexScanCommand]!;
  const cap = String(maxRecords);

  /**
   * The records of `entries` (newest first) that `filter` matches, into `page` up to the
   * filter's limit (`found` so far); true once the scan has passed `since`.
   */
  const take = (
    entries: readonly StreamEntry[],
    filter: RequestFilter,
    page: RequestRecord[],
    found: number,
  ): boolean => {
    for (const [, fields] of entries) {
      const record = recordOf(fields);
      if (record === null) continue;
      if (scanPassedSince(record, filter)) return true;
      if (matchesRequestFilter(record, filter)) {
        page.push(record);
        if (found + page.length >= filter.limit) return false;
      }
    }
    return false;
  };

  /**
   * Every entry newest first below `end`, down to the newest `maxRecords` (`floorId`, when
   * given, is the oldest of them; else they are counted).
   */
  async function* scan(
    filter: RequestFilter,
    end: string,
    floorId: string | null,
  ): AsyncGenerator<RequestRecord[]> {
    let scanned = 0;
    let found = 0;
    while (found < filter.limit && scanned < maxRecords) {
      const count = Math.min(READ_PAGE, maxRecords - scanned);
      const read = (await client.xrevrange(key, end, "-", "COUNT", count)) as StreamEntry[];
      const floorAt = floorId === null ? -1 : read.findIndex(([id]) => id === floorId);
      const entries = floorAt === -1 ? read : read.slice(0, floorAt + 1);
      const page: RequestRecord[] = [];
      const passed = take(entries, filter, page, found);
      found += page.length;
      if (page.length > 0) yield page;
      scanned += entries.length;
      if (passed || floorAt !== -1 || read.length < count) return;
      end = `(${read.at(-1)![0]}`;
    }
  }

  /**
   * The entries index stream `index` names, newest first, then, by the scan, the records
   * written before the first one indexed (whose id `fromKey` holds).
   */
  async function* indexPages(
    filter: RequestFilter,
    index: string,
    fromKey: string,
  ): AsyncGenerator<RequestRecord[]> {
    let below = "+";
    let found = 0;
    for (;;) {
      // An index holds what its filter asks for: no more ids than the page still needs.
      const count = Math.min(READ_PAGE, filter.limit - found);
      const [entries, read, lastId, reachedFloor, floorId, indexedFrom] = await indexScan.call(
        client,
        key,
        index,
        fromKey,
        below,
        count,
        maxRecords,
      );
      const page: RequestRecord[] = [];
      const passed = take(entries, filter, page, found);
      found += page.length;
      if (page.length > 0) yield page;
      if (passed || found >= filter.limit || reachedFloor === 1 || floorId === "") return;
      if (read < count) {
        // The index is read: what an earlier version wrote lies below its first id.
        if (indexedFrom === "")
          yield* scan({ ...filter, limit: filter.limit - found }, "+", floorId);
        else if (indexedFrom !== floorId && isAfter(indexedFrom, floorId)) {
          yield* scan({ ...filter, limit: filter.limit - found }, `(${indexedFrom}`, floorId);
        }
        return;
      }
      below = `(${lastId}`;
    }
  }

  return {
    async append(records) {
      if (records.length === 0) return;
      await connected();
      const slots = new Map<string, number>();
      const args: string[] = [cap];
      for (const record of records) {
        let slot = slots.get(record.keyId);
        if (slot === undefined) {
          slot = slots.size + 1;
          slots.set(record.keyId, slot);
        }
        args.push(String(slot), isServed(record.status) ? "0" : "1", JSON.stringify(record));
      }
      const indexes = [...slots.keys()].map(indexOf);
      await appendAll.call(
        client,
        String(5 + indexes.length),
        key,
        indexesKey,
        indexedFromKey,
        unservedFromKey,
        unservedKey,
        ...indexes,
        ...args,
      );
    },
    async *pages(filter) {
      await connected();
      if (filter.key !== undefined) yield* indexPages(filter, indexOf(filter.key), indexedFromKey);
      else if (excludesServed(filter)) yield* indexPages(filter, unservedKey, unservedFromKey);
      else yield* scan(filter, "+", null);
    },
    async prune(bounds) {
      await connected();
      // Oldest first: everything up to the first record young enough to keep goes.
      for (let page = 0; page < PRUNE_PAGES; page++) {
        const entries = (await client.xrange(key, "-", "+", "COUNT", READ_PAGE)) as StreamEntry[];
        if (entries.length === 0) break;
        const young = entries.find(([, fields]) => {
          const record = recordOf(fields);
          return record !== null && Date.parse(record.at) >= bounds.beforeMs;
        });
        await client.xtrim(key, "MINID", young ? young[0] : nextId(entries.at(-1)![0]));
        if (young || entries.length < READ_PAGE) break;
      }
      await pruneIndexes();
    },
    async close() {
      await client.quit().catch(() => client.disconnect());
    },
  };

  /**
   * Trims every index (each key's, the unserved records') to the stream's first entry (its ids
   * below it name nothing any more), and drops the indexes left empty.
   */
  async function pruneIndexes(): Promise<void> {
    const indexes = await client.smembers(indexesKey);
    if (indexes.length === 0) return;
    const head = ((await client.xrange(key, "-", "+", "COUNT", 1)) as StreamEntry[])[0];
    let empty = indexes;
    if (head) {
      const trim = client.pipeline();
      for (const index of indexes) trim.xtrim(index, "MINID", head[0]).xlen(index);
      const replies = (await trim.exec()) ?? [];
      empty = indexes.filter((_, at) => replies[2 * at + 1]?.[1] === 0);
    }
    if (empty.length > 0) {
      await client.del(...empty);
      await client.srem(indexesKey, ...empty);
    }
  }
}

/** True for a status the unserved index leaves out: 2xx. */
function isServed(status: number): boolean {
  return status >= 200 && status <= 299;
}

/** True when `filter`'s status range leaves out every 2xx: it matches unserved records only. */
function excludesServed(filter: RequestFilter): boolean {
  return (
    (filter.statusMin !== undefined && filter.statusMin > 299) ||
    (filter.statusMax !== undefined && filter.statusMax < 200)
  );
}

function recordOf(fields: readonly string[]): RequestRecord | null {
  const at = fields.indexOf("r");
  const text = at >= 0 && at % 2 === 0 ? fields[at + 1] : undefined;
  return text === undefined ? null : parseStoredRecord(text);
}

/** The stream id just after `id` (`ms-seq` → `ms-(seq+1)`). */
function nextId(id: string): string {
  const dash = id.indexOf("-");
  return `${id.slice(0, dash)}-${BigInt(id.slice(dash + 1)) + 1n}`;
}

/**
 * True when Redis Cluster places `key` by a hash tag of its own: a non-empty text between its
 * first `{` and the next `}`. Keys that start with such a key share its slot.
 */
function hasHashTag(key: string): boolean {
  const open = key.indexOf("{");
  return open !== -1 && key.indexOf("}", open + 1) > open + 1;
}

/** True when stream id `a` comes after stream id `b`. */
function isAfter(a: string, b: string): boolean {
  const [am, as] = a.split("-").map(BigInt) as [bigint, bigint];
  const [bm, bs] = b.split("-").map(BigInt) as [bigint, bigint];
  return am !== bm ? am > bm : as > bs;
}
