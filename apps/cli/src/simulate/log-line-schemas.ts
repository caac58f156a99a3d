/**
 * Total guards for the log lines the simulator reads. Each takes an already JSON-parsed value
 * and returns only the usage fields, or a reason naming the first field that failed; nothing
 * else of the line (message content, paths, prompts) is copied out.
 */

/** Result of a guard: the fields it keeps, or why the line was rejected. */
type Guarded<T> = { ok: true; value: T } | { ok: false; reason: string };

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

/** A count that may be absent or null (read as 0); false when present and not a count. */
function optionalCount(value: unknown): number | false {
  if (value === undefined || value === null) return 0;
  return isCount(value) ? value : false;
}

const fail = (reason: string): { ok: false; reason: string } => ({ ok: false, reason });

/** The usage of one Claude Code `assistant` line. */
interface ClaudeUsageLine {
  timestamp: string;
  messageId: string | undefined;
  model: string;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

/** Guards a Claude Code transcript line of `type: "assistant"` (one API response). */
export function guardClaudeAssistantLine(line: Json): Guarded<ClaudeUsageLine> {
  if (typeof line.timestamp !== "string") return fail("timestamp: expected a string");
  const message = line.message;
  if (!isObject(message)) return fail("message: expected an object");
  if (typeof message.model !== "string" || message.model === "") {
    return fail("message.model: expected a model id");
  }
  const usage = message.usage;
  if (!isObject(usage)) return fail("message.usage: expected an object");
  if (!isCount(usage.input_tokens)) return fail("message.usage.input_tokens: expected a count");
  if (!isCount(usage.output_tokens)) return fail("message.usage.output_tokens: expected a count");
  const cacheRead = optionalCount(usage.cache_read_input_tokens);
  if (cacheRead === false) return fail("message.usage.cache_read_input_tokens: expected a count");
  const cacheWrite = optionalCount(usage.cache_creation_input_tokens);
  if (cacheWrite === false) {
    return fail("message.usage.cache_creation_input_tokens: expected a count");
  }
  return {
    ok: true,
    value: {
      timestamp: line.timestamp,
      messageId: typeof message.id === "string" ? message.id : undefined,
      model: message.model,
      inputTokens: usage.input_tokens,
      outputTokens: usage.output_tokens,
      cacheReadTokens: cacheRead,
      cacheWriteTokens: cacheWrite,
    },
  };
}

/** One Codex usage object (`last_token_usage`). */
interface CodexUsage {
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  totalTokens: number | null;
}

/** One Codex rate-limit window (`rate_limits.primary` / `secondary`). */
interface CodexWindow {
  usedPercent: number;
  windowMinutes: number;
  /** Epoch seconds, as Codex writes it. */
  resetsAtSec: number;
}

/** The usage fields of a Codex `event_msg` / `token_count` line. */
interface CodexTokenCountLine {
  timestamp: string;
  /** Null when the event carried no usage (Codex sends rate limits alone too). */
  last: CodexUsage | null;
  /** `total_token_usage.total_tokens`: repeated events with the same total are one request. */
  cumulativeTotal: number | null;
  windows: CodexWindow[];
}

function guardCodexUsage(value: unknown, path: string): Guarded<CodexUsage> {
  if (!isObject(value)) return fail(`${path}: expected an object`);
  if (!isCount(value.input_tokens)) return fail(`${path}.input_tokens: expected a count`);
  if (!isCount(value.output_tokens)) return fail(`${path}.output_tokens: expected a count`);
  const cached = optionalCount(value.cached_input_tokens);
  if (cached === false) return fail(`${path}.cached_input_tokens: expected a count`);
  const total = optionalCount(value.total_tokens);
  if (total === false) return fail(`${path}.total_tokens: expected a count`);
  return {
    ok: true,
    value: {
      inputTokens: value.input_tokens,
      cachedInputTokens: cached,
      outputTokens: value.output_tokens,
      totalTokens: value.total_tokens === undefined || value.total_tokens === null ? null : total,
    },
  };
}

/** Guards a Codex rollout `token_count` event line. */
export function guardCodexTokenCountLine(line: Json): Guarded<CodexTokenCountLine> {
  if (typeof line.timestamp !== "string") return fail("timestamp: expected a string");
  const payload = line.payload as Json;
  const windows: CodexWindow[] = [];
  const limits = payload.rate_limits;
  if (isObject(limits)) {
    for (const name of ["primary", "secondary"]) {
      const window = limits[name];
      if (window === undefined || window === null) continue;
      if (
        !isObject(window) ||
        typeof window.used_percent !== "number" ||
        !Number.isFinite(window.used_percent) ||
        !isCount(window.window_minutes) ||
        window.window_minutes === 0 ||
        typeof window.resets_at !== "number" ||
        !Number.isFinite(window.resets_at)
      ) {
        return fail(
          `payload.rate_limits.${name}: expected used_percent, window_minutes, resets_at`,
        );
      }
      windows.push({
        usedPercent: window.used_percent,
        windowMinutes: window.window_minutes,
        resetsAtSec: window.resets_at,
      });
    }
  }
  const info = payload.info;
  if (info === undefined || info === null) {
    return {
      ok: true,
      value: { timestamp: line.timestamp, last: null, cumulativeTotal: null, windows },
    };
  }
  if (!isObject(info)) return fail("payload.info: expected an object");
  const last = guardCodexUsage(info.last_token_usage, "payload.info.last_token_usage");
  if (!last.ok) return last;
  let cumulativeTotal: number | null = null;
  if (info.total_token_usage !== undefined && info.total_token_usage !== null) {
    const total = guardCodexUsage(info.total_token_usage, "payload.info.total_token_usage");
    if (!total.ok) return total;
    cumulativeTotal = total.value.totalTokens;
  }
  return {
    ok: true,
    value: { timestamp: line.timestamp, last: last.value, cumulativeTotal, windows },
  };
}

/** Guards a Codex rollout `turn_context` line; returns the model it names. */
export function guardCodexTurnContextLine(line: Json): Guarded<string> {
  const payload = line.payload;
  if (!isObject(payload) || typeof payload.model !== "string" || payload.model === "") {
    return fail("payload.model: expected a model id");
  }
  return { ok: true, value: payload.model };
}

/** One request of a generic trace. */
interface GenericRow {
  /** Epoch milliseconds. */
  timeMs: number;
  model: string;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
}

function countOf(value: unknown): number | null {
  if (isCount(value)) return value;
  if (typeof value === "string" && /^\d+$/.test(value.trim())) {
    const n = Number(value.trim());
    return Number.isSafeInteger(n) ? n : null;
  }
  return null;
}

/**
 * Guards a generic trace row (JSONL object or CSV row as strings): `time` (ISO instant or epoch
 * ms), `model`, `input_tokens` (all prompt tokens, cached included), `output_tokens`, and an
 * optional `cached_input_tokens`.
 */
export function guardGenericRow(row: Json): Guarded<GenericRow> {
  const time = row.time;
  let timeMs = Number.NaN;
  if (typeof time === "number" && Number.isFinite(time)) timeMs = time;
  else if (typeof time === "string") timeMs = /^\d+$/.test(time) ? Number(time) : Date.parse(time);
  if (Number.isNaN(timeMs)) return fail("time: expected an ISO instant or epoch milliseconds");
  if (typeof row.model !== "string" || row.model === "") return fail("model: expected a model id");
  const input = countOf(row.input_tokens);
  if (input === null) return fail("input_tokens: expected a count");
  const output = countOf(row.output_tokens);
  if (output === null) return fail("output_tokens: expected a count");
  const cachedRaw = row.cached_input_tokens;
  const cached =
    cachedRaw === undefined || cachedRaw === null || cachedRaw === "" ? 0 : countOf(cachedRaw);
  if (cached === null) return fail("cached_input_tokens: expected a count");
  if (cached > input) {
    return fail("cached_input_tokens: exceeds input_tokens (cached tokens are part of input)");
  }
  return {
    ok: true,
    value: {
      timeMs,
      model: row.model,
      inputTokens: input,
      outputTokens: output,
      cachedInputTokens: cached,
    },
  };
}
