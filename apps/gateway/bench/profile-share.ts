import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The parts of a V8 `.cpuprofile` this reads. */
interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

/**
 * The session affinity work of a request, as its functions appear in a CPU profile: the session
 * key and its hash (session-key.ts), the route's `sessionOf`, the pin lookup, placement and
 * answer header (session-placement.ts, session-affinity.ts), the pin written after an answer
 * (`pinServed`) and the session book itself.
 */
export const SESSION_WORK =
  /(session-key|session-placement|session-affinity|session-book)\.ts$|^(sessionOf|pinServed) /;

/**
 * The share of process `pid`'s busy main-thread time spent in functions matching `pattern`
 * (tested against `"<function name> <script url>"`) or in what they called, from its profile in
 * `dir` (written by `--cpu-prof`). Busy time is every sample but idle and module loading (the
 * start-up's, which no request pays). Null when `dir` holds no profile of it.
 */
export function busyShareOf(dir: string, pid: number, pattern: RegExp): number | null {
  // --cpu-prof names a file CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile; thread 0 is main.
  const name = readdirSync(dir).find((file) => file.includes(`.${pid}.0.`));
  if (name === undefined) return null;
  const profile = JSON.parse(readFileSync(join(dir, name), "utf8")) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parentOf.set(child, node.id);
  /** Whether node `id` or one of its callers passes `test`, memoised per node in `known`. */
  const upward = (test: (text: string) => boolean, known: Map<number, boolean>) => {
    const check = (id: number): boolean => {
      const cached = known.get(id);
      if (cached !== undefined) return cached;
      const frame = byId.get(id)!.callFrame;
      const parent = parentOf.get(id);
      const found =
        test(`${frame.functionName} ${frame.url}`) || (parent !== undefined && check(parent));
      known.set(id, found);
      return found;
    };
    return check;
  };
  const inPattern = upward((text) => pattern.test(text), new Map());
  const loading = upward((text) => text.includes(" node:internal/modules/"), new Map());
  let busy = 0;
  let matched = 0;
  profile.samples.forEach((id, index) => {
    if (byId.get(id)!.callFrame.functionName === "(idle)" || loading(id)) return;
    const delta = profile.timeDeltas[index] ?? 0;
    busy += delta;
    if (inPattern(id)) matched += delta;
  });
  return busy === 0 ? null : matched / busy;
}
