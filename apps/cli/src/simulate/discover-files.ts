import { existsSync, readdirSync, statSync } from "node:fs";
import { isAbsolute, join, resolve, sep } from "node:path";

/** Where Claude Code and Codex keep their session logs, relative to the home directory. */
export const DEFAULT_TRACE_GLOBS: readonly string[] = [
  ".claude/projects/**/*.jsonl",
  ".codex/sessions/**/rollout-*.jsonl",
];

/**
 * Files a `--from` value names: a file, a directory (every `.jsonl` and `.csv` under it), or a
 * glob where `*` and `?` match within one path segment and `**` matches any number of segments.
 * Relative values resolve against `cwd`. The result is sorted, so a replay is deterministic.
 */
export function expandTracePath(pattern: string, cwd: string): string[] {
  const absolute = isAbsolute(pattern) ? pattern : resolve(cwd, pattern);
  if (!/[*?]/.test(absolute)) {
    if (!existsSync(absolute)) return [];
    if (statSync(absolute).isDirectory()) {
      return [...walk(absolute)].filter((file) => /\.(jsonl|csv)$/i.test(file)).sort();
    }
    return [absolute];
  }
  const segments = absolute.split(sep);
  const fixed: string[] = [];
  while (segments.length > 0 && !/[*?]/.test(segments[0]!)) fixed.push(segments.shift()!);
  const root = fixed.join(sep) || sep;
  if (!existsSync(root)) return [];
  const matcher = segments.map(segmentMatcher);
  const out: string[] = [];
  for (const file of walk(root)) {
    const rest = file.slice(root.length).split(sep).filter(Boolean);
    if (matchSegments(matcher, 0, rest, 0)) out.push(file);
  }
  return out.sort();
}

/** Every existing default log file under `home` (Claude Code first, then Codex), sorted. */
export function discoverDefaultTraces(home: string): string[] {
  return DEFAULT_TRACE_GLOBS.flatMap((glob) => expandTracePath(join(home, glob), home));
}

type SegmentMatcher = RegExp | "**";

function segmentMatcher(segment: string): SegmentMatcher {
  if (segment === "**") return "**";
  const body = segment
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, "[^/]*")
    .replace(/\?/g, "[^/]");
  return new RegExp(`^${body}$`);
}

function matchSegments(
  pattern: readonly SegmentMatcher[],
  p: number,
  parts: readonly string[],
  i: number,
): boolean {
  if (p === pattern.length) return i === parts.length;
  const head = pattern[p]!;
  if (head === "**") {
    for (let skip = i; skip <= parts.length; skip++) {
      if (matchSegments(pattern, p + 1, parts, skip)) return true;
    }
    return false;
  }
  return i < parts.length && head.test(parts[i]!) && matchSegments(pattern, p + 1, parts, i + 1);
}

function* walk(dir: string): Generator<string> {
  let entries: import("node:fs").Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else if (entry.isFile()) yield path;
  }
}
