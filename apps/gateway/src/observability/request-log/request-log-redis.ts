import { createLazyRedis } from "../../redis-client";
import { matchesRequestFilter } from "./request-filter";
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
 * Appends ARGV[2..] to stream KEYS[1], one entry each (field `r`), capped near ARGV[1]. One
 * script call per batch instead of one XADD command per record: the client builds, writes and
 * answers one command, and Redis parses one, whatever the batch holds.
 */
const appendScript = `
for i = 2, #ARGV do
  redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'r', ARGV[i])
end
return #ARGV - 1
`;

const appendCommand = "planfirstRequestLogAppend";

type AppendCommand = (key: string, maxRecords: string, ...records: string[]) => Promise<number>;

/**
 * The request log in one Redis stream shared by every replica: each record is an entry
 * (`XADD … MAXLEN ~ maxRecords`, field `r` = the record as JSON, a batch in one script call),
 * so the stream trims itself as it is written. Reads go newest first (`XREVRANGE`) and never
 * look past the newest `maxRecords` entries, which makes the approximate cap exact for readers.
 */
export function createRedisRequestLogStore(options: RedisRequestLogStoreOptions): RequestLogStore {
  // A failure reaches the log through the command that failed (it warns once per outage).
  const { client, connected } = createLazyRedis(options.url, { maxRetriesPerRequest: 2 });
  const { key, maxRecords } = options;
  client.defineCommand(appendCommand, { numberOfKeys: 1, lua: appendScript });
  const appendAll = (client as unknown as Record<string, AppendCommand>)[appendCommand]!;
  const cap = String(maxRecords);
  return {
    async append(records) {
      if (records.length === 0) return;
      await connected();
      const texts = records.map((record) => JSON.stringify(record));
      await appendAll.call(client, key, cap, ...texts);
    },
    async *pages(filter) {
      await connected();
      let end = "+";
      let scanned = 0;
      let found = 0;
      while (found < filter.limit && scanned < maxRecords) {
        const count = Math.min(READ_PAGE, maxRecords - scanned);
        const entries = (await client.xrevrange(key, end, "-", "COUNT", count)) as StreamEntry[];
        const page: RequestRecord[] = [];
        let passed = false;
        for (const [, fields] of entries) {
          const record = recordOf(fields);
          if (record === null) continue;
          if (scanPassedSince(record, filter)) {
            passed = true;
            break;
          }
          if (matchesRequestFilter(record, filter)) {
            page.push(record);
            if (++found >= filter.limit) break;
          }
        }
        if (page.length > 0) yield page;
        scanned += entries.length;
        if (passed || entries.length < count) return;
        end = `(${entries.at(-1)![0]}`;
      }
    },
    async prune(bounds) {
      await connected();
      // Oldest first: everything up to the first record young enough to keep goes.
      for (let page = 0; page < PRUNE_PAGES; page++) {
        const entries = (await client.xrange(key, "-", "+", "COUNT", READ_PAGE)) as StreamEntry[];
        if (entries.length === 0) return;
        const young = entries.find(([, fields]) => {
          const record = recordOf(fields);
          return record !== null && Date.parse(record.at) >= bounds.beforeMs;
        });
        await client.xtrim(key, "MINID", young ? young[0] : nextId(entries.at(-1)![0]));
        if (young || entries.length < READ_PAGE) return;
      }
    },
    async close() {
      await client.quit().catch(() => client.disconnect());
    },
  };
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
