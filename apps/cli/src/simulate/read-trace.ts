import { requestRecordSchema } from "@planfirst/gateway";
import {
  guardClaudeAssistantLine,
  guardCodexTokenCountLine,
  guardCodexTurnContextLine,
  guardGenericRow,
} from "./log-line-schemas";
import { readLines } from "./read-lines";
import type { BadLine, Trace, TraceRecord, UtilizationReading } from "./trace-record";

type LineKind = "claude-code" | "codex" | "request-log" | "generic" | "ignore";

/** Per-file reader state: only what deduplication and model attribution need. */
interface FileState {
  file: string;
  /** Claude Code writes one line per content block, each repeating the same message and usage. */
  seenMessageIds: Set<string>;
  /** Model named by the last Codex `turn_context`. */
  codexModel: string | null;
  /** Codex repeats a `token_count` event with unchanged totals; those are not new requests. */
  lastCodexTotal: number | null;
  csvHeader: string[] | null;
}

/**
 * Reads trace files one line at a time (constant memory per file) and keeps only the usage
 * fields. Each line is recognised by its own shape: a Claude Code `assistant` line, a Codex
 * `turn_context` / `token_count` line, a record of a gateway's request log export (the usage of
 * the model that served it), or a generic row (`time, model, input_tokens, output_tokens,
 * cached_input_tokens`); `.csv` files are generic with a header row. Other JSON
 * lines (user turns, tool results, summaries) are skipped silently; a line that is not JSON, or
 * that looks like usage but does not validate, is recorded as a {@link BadLine} with its file
 * and line number and never stops the read. Records come back sorted by time (stable).
 */
export async function readTrace(files: readonly string[]): Promise<Trace> {
  const records: TraceRecord[] = [];
  const readings: UtilizationReading[] = [];
  const badLines: BadLine[] = [];
  for (const file of files) {
    const state: FileState = {
      file,
      seenMessageIds: new Set(),
      codexModel: null,
      lastCodexTotal: null,
      csvHeader: null,
    };
    const csv = file.toLowerCase().endsWith(".csv");
    let current = 0;
    // One reporter per file (not per line): the line number is read when a line is rejected.
    const bad = (reason: string) => {
      badLines.push({ file, line: current, reason });
    };
    for await (const { line, text } of readLines(file)) {
      current = line;
      if (text.trim() === "") continue;
      if (csv) {
        readCsvLine(state, text, records, bad);
        continue;
      }
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        bad("not JSON");
        continue;
      }
      readJsonLine(state, value, records, readings, bad);
    }
  }
  records.sort((a, b) => a.timeMs - b.timeMs);
  readings.sort((a, b) => a.timeMs - b.timeMs);
  return { records, readings, badLines, files: [...files] };
}

function kindOf(value: unknown): LineKind {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "ignore";
  const type = (value as { type?: unknown }).type;
  if (type === "assistant") return "claude-code";
  if (type === "turn_context") return "codex";
  if (type === "event_msg") {
    const payload = (value as { payload?: { type?: unknown } }).payload;
    return payload?.type === "token_count" ? "codex" : "ignore";
  }
  if ("requestId" in value && "modelAsked" in value && "attempts" in value) return "request-log";
  if ("input_tokens" in value && "model" in value) return "generic";
  return "ignore";
}

function readJsonLine(
  state: FileState,
  value: unknown,
  records: TraceRecord[],
  readings: UtilizationReading[],
  bad: (reason: string) => void,
): void {
  const kind = kindOf(value);
  if (kind === "ignore") return;
  const line = value as Record<string, unknown>;
  if (kind === "claude-code") {
    const parsed = guardClaudeAssistantLine(line);
    if (!parsed.ok) {
      bad(`assistant line without valid usage (${parsed.reason})`);
      return;
    }
    const usage = parsed.value;
    // Claude Code's own placeholder for turns that never reached the API.
    if (usage.model === "<synthetic>") return;
    if (usage.messageId !== undefined) {
      if (state.seenMessageIds.has(usage.messageId)) return;
      state.seenMessageIds.add(usage.messageId);
    }
    const timeMs = Date.parse(usage.timestamp);
    if (Number.isNaN(timeMs)) {
      bad("timestamp: not an ISO instant");
      return;
    }
    records.push({
      timeMs,
      model: usage.model,
      // Anthropic reports cache reads and writes apart from input_tokens; the ledger counts all.
      inputTokens: usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens,
      outputTokens: usage.outputTokens,
      cachedInputTokens: usage.cacheReadTokens,
      cacheWriteTokens: usage.cacheWriteTokens,
      source: "claude-code",
    });
    return;
  }
  if (kind === "codex") {
    if (line.type === "turn_context") {
      const parsed = guardCodexTurnContextLine(line);
      if (!parsed.ok) {
        bad(`turn_context without a model (${parsed.reason})`);
        return;
      }
      state.codexModel = parsed.value;
      return;
    }
    const parsed = guardCodexTokenCountLine(line);
    if (!parsed.ok) {
      bad(`token_count event without valid usage (${parsed.reason})`);
      return;
    }
    const event = parsed.value;
    const timeMs = Date.parse(event.timestamp);
    if (Number.isNaN(timeMs)) {
      bad("timestamp: not an ISO instant");
      return;
    }
    for (const window of event.windows) {
      readings.push({
        timeMs,
        provider: "codex",
        source: "codex",
        windowMinutes: window.windowMinutes,
        usedPercent: window.usedPercent,
        // Codex writes resets_at in epoch seconds.
        resetsAtMs: window.resetsAtSec * 1000,
      });
    }
    if (!event.last) return;
    if (event.cumulativeTotal !== null && event.cumulativeTotal === state.lastCodexTotal) return;
    state.lastCodexTotal = event.cumulativeTotal;
    if (state.codexModel === null) {
      bad("token_count before any turn_context names the model");
      return;
    }
    const usage = event.last;
    records.push({
      timeMs,
      model: state.codexModel,
      // OpenAI's convention: input_tokens includes the cached part, and output_tokens already
      // counts reasoning. Adding reasoning again would inflate the all-metered cost, which is
      // the figure a saving is measured against.
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      cachedInputTokens: Math.min(usage.cachedInputTokens, usage.inputTokens),
      cacheWriteTokens: 0,
      source: "codex",
    });
    return;
  }
  if (kind === "request-log") {
    pushLogged(line, records, bad);
    return;
  }
  pushGeneric(line, records, bad);
}

/**
 * One record of a gateway's request log: the usage of the model that served it. A request no
 * upstream answered (refused, or left before an answer) has no usage to replay and is skipped.
 */
function pushLogged(
  line: Record<string, unknown>,
  records: TraceRecord[],
  bad: (reason: string) => void,
): void {
  const parsed = requestRecordSchema.safeParse(line);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    bad(
      `request log record without valid fields (${issue?.path.join(".") || "record"}: ${issue?.message ?? "invalid"})`,
    );
    return;
  }
  const logged = parsed.data;
  const model = logged.modelServed;
  if (model === null || logged.inputTokens === null || logged.outputTokens === null) return;
  const timeMs = Date.parse(logged.at);
  if (Number.isNaN(timeMs)) {
    bad("at: not an ISO instant");
    return;
  }
  records.push({
    timeMs,
    model,
    // The gateway's convention is the ledger's: input counts cached reads and cache writes.
    inputTokens: logged.inputTokens,
    outputTokens: logged.outputTokens,
    cachedInputTokens: Math.min(logged.cachedInputTokens ?? 0, logged.inputTokens),
    cacheWriteTokens: Math.min(logged.cacheWriteTokens ?? 0, logged.inputTokens),
    source: "request-log",
  });
}

function pushGeneric(
  row: Record<string, unknown>,
  records: TraceRecord[],
  bad: (reason: string) => void,
): void {
  const parsed = guardGenericRow(row);
  if (!parsed.ok) {
    bad(`row without valid usage (${parsed.reason})`);
    return;
  }
  const { timeMs, model, inputTokens, outputTokens, cachedInputTokens } = parsed.value;
  records.push({
    timeMs,
    model,
    inputTokens,
    outputTokens,
    cachedInputTokens,
    cacheWriteTokens: 0,
    source: "generic",
  });
}

function readCsvLine(
  state: FileState,
  text: string,
  records: TraceRecord[],
  bad: (reason: string) => void,
): void {
  const cells = text.split(",").map((cell) => cell.trim().replace(/^"(.*)"$/, "$1"));
  if (state.csvHeader === null) {
    const header = cells.map((cell) => cell.toLowerCase());
    if (!header.includes("time") || !header.includes("model")) {
      state.csvHeader = [];
      bad("CSV header must name time, model, input_tokens, output_tokens");
      return;
    }
    state.csvHeader = header;
    return;
  }
  if (state.csvHeader.length === 0) {
    bad("no usable CSV header");
    return;
  }
  if (cells.length !== state.csvHeader.length) {
    bad(`expected ${state.csvHeader.length} columns, found ${cells.length}`);
    return;
  }
  const row: Record<string, string> = {};
  state.csvHeader.forEach((name, index) => {
    row[name] = cells[index]!;
  });
  pushGeneric(row, records, bad);
}
