/** Bucket upper bounds of the upstream latency histogram, in seconds. */
const LATENCY_BUCKETS_SECONDS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120,
] as const;

/** Bucket upper bounds of the wait-for-a-plan histogram, in seconds (up to the default cap). */
const WAIT_BUCKETS_SECONDS = [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600] as const;

interface Histogram {
  labels: string;
  counts: number[];
  sum: number;
  count: number;
}

/** A gauge value read when `/metrics` is scraped (quota, spend, budget). */
interface GaugeSample {
  labels: Record<string, string>;
  value: number;
}

/**
 * The gateway's Prometheus metrics. Counters and histograms are updated on the request path with
 * one Map lookup each; gauges are collected at scrape time from live state, so nothing is
 * computed for them per request.
 */
export interface GatewayMetrics {
  /** One routed request finished (`outcome`: ok, client_error, upstream_error, exhausted, …). */
  countRequest(rung: string, connection: string, outcome: string, nowMs: number): void;
  /** A target failed and the request fell through to the next one. */
  countFallthrough(fromRung: string, connection: string, reason: string): void;
  /**
   * A request met a connection at its `maxConcurrent` (`outcome`: `passed_over` for a later
   * target, `queued` then served a slot, `refused` when its wait ended without one, `abandoned`
   * when its client left the line). The gateway's own limit: never a fall-through count.
   */
  countLocalCapacity(connection: string, outcome: string): void;
  /** Time from sending upstream to its response headers, in milliseconds. */
  observeUpstreamLatency(connection: string, latencyMs: number): void;
  /** An upstream time (reset, retry) beyond what its window allows was dropped. */
  countImplausibleTime(connection: string, source: string): void;
  /** A request started waiting for the plan connection `connection` (ladder.md §17). */
  countWaitStarted(connection: string): void;
  /**
   * A request that asked to wait for `connection` was answered. `outcome`: `served`, `refused`
   * (the 429 its wait became), `climbed` (`auto/thrifty` went on to a paid rung),
   * `disconnected`, `room_full` (refused a place in line: it never waited). `waitedMs`, from its
   * arrival to its answer, feeds the wait histogram; null for a request that never waited.
   */
  observeWait(connection: string, outcome: string, waitedMs: number | null): void;
  /** Request records dropped unwritten because the request log's queue was full. */
  countRequestLogDropped(count: number): void;
  /** Registers a gauge family collected at scrape time. */
  registerGauge(name: string, help: string, collect: () => GaugeSample[]): void;
  /** Requests per rung over the last `windowMs` (default one hour). */
  requestsPerRung(nowMs: number, windowMs?: number): Record<string, number>;
  /** The Prometheus text exposition (version 0.0.4). */
  render(): string;
}

const MINUTE_MS = 60_000;
const REQUEST_LABELS = ["rung", "connection", "outcome"] as const;
const FALLTHROUGH_LABELS = ["rung", "connection", "reason"] as const;

/** Creates an empty metrics registry. */
export function createMetrics(): GatewayMetrics {
  const requests = new Map<string, number>();
  const fallthroughs = new Map<string, number>();
  const implausibleTimes = new Map<string, number>();
  const waitsStarted = new Map<string, number>();
  const waits = new Map<string, number>();
  const localCapacity = new Map<string, number>();
  const latency = new Map<string, Histogram>();
  const waitLengths = new Map<string, Histogram>();
  let requestLogDropped = 0;
  const gauges: { name: string; help: string; collect: () => GaugeSample[] }[] = [];
  // Requests per rung per minute for the last hour: minute index → rung → count.
  const perMinute = new Map<number, Map<string, number>>();

  // Label text per (a, b, c) triple, built once: the request path only does Map lookups.
  const labelCache = new Map<string, Map<string, Map<string, string>>>();
  function labels(
    names: readonly [string, string, string],
    a: string,
    b: string,
    c: string,
  ): string {
    const root = `${names[2]}\u0000${a}`;
    let byB = labelCache.get(root);
    if (!byB) {
      byB = new Map();
      labelCache.set(root, byB);
    }
    let byC = byB.get(b);
    if (!byC) {
      byC = new Map();
      byB.set(b, byC);
    }
    let text = byC.get(c);
    if (text === undefined) {
      text = labelText({ [names[0]]: a, [names[1]]: b, [names[2]]: c });
      byC.set(c, text);
    }
    return text;
  }

  function bump(map: Map<string, number>, key: string): void {
    map.set(key, (map.get(key) ?? 0) + 1);
  }

  return {
    countRequest(rung, connection, outcome, nowMs) {
      bump(requests, labels(REQUEST_LABELS, rung, connection, outcome));
      const minute = Math.floor(nowMs / MINUTE_MS);
      let bucket = perMinute.get(minute);
      if (!bucket) {
        bucket = new Map();
        perMinute.set(minute, bucket);
        for (const key of perMinute.keys()) if (key < minute - 60) perMinute.delete(key);
      }
      bump(bucket, rung);
    },
    countFallthrough(fromRung, connection, reason) {
      bump(fallthroughs, labels(FALLTHROUGH_LABELS, fromRung, connection, reason));
    },
    countLocalCapacity(connection, outcome) {
      // Only while a connection is full, so the label text is built on each call.
      bump(localCapacity, labelText({ connection, outcome }));
    },
    countImplausibleTime(connection, source) {
      // Rare (a misbehaving upstream), so the label text is built on each call.
      bump(implausibleTimes, labelText({ connection, source }));
    },
    countWaitStarted(connection) {
      // Once per waiting request, never on the routed path of one that does not wait.
      bump(waitsStarted, labelText({ connection }));
    },
    observeWait(connection, outcome, waitedMs) {
      bump(waits, labelText({ connection, outcome }));
      if (waitedMs !== null) observe(waitLengths, WAIT_BUCKETS_SECONDS, connection, waitedMs);
    },
    observeUpstreamLatency(connection, latencyMs) {
      observe(latency, LATENCY_BUCKETS_SECONDS, connection, latencyMs);
    },
    countRequestLogDropped(count) {
      requestLogDropped += count;
    },
    registerGauge(name, help, collect) {
      gauges.push({ name, help, collect });
    },
    requestsPerRung(nowMs, windowMs = 60 * MINUTE_MS) {
      const from = Math.floor((nowMs - windowMs) / MINUTE_MS);
      const totals: Record<string, number> = {};
      for (const [minute, bucket] of perMinute) {
        if (minute <= from) continue;
        for (const [rung, count] of bucket) totals[rung] = (totals[rung] ?? 0) + count;
      }
      return totals;
    },
    render() {
      const lines: string[] = [];
      family(
        lines,
        "planfirst_requests_total",
        "counter",
        "Routed requests by rung, connection and outcome.",
        requests,
      );
      family(
        lines,
        "planfirst_fallthroughs_total",
        "counter",
        "Targets that failed and passed the request to the next target.",
        fallthroughs,
      );
      family(
        lines,
        "planfirst_local_capacity_total",
        "counter",
        "Requests that met a connection at its maxConcurrent, by connection and outcome (passed_over, queued, refused, abandoned).",
        localCapacity,
      );
      family(
        lines,
        "planfirst_implausible_times_total",
        "counter",
        "Upstream reset or retry times dropped as beyond their window, by connection and source.",
        implausibleTimes,
      );
      lines.push(
        "# HELP planfirst_request_log_dropped_total Request records dropped because the request log's write queue was full.",
        "# TYPE planfirst_request_log_dropped_total counter",
        `planfirst_request_log_dropped_total ${requestLogDropped}`,
      );
      family(
        lines,
        "planfirst_waits_started_total",
        "counter",
        "Requests that started waiting for a plan connection, by the connection they waited for.",
        waitsStarted,
      );
      family(
        lines,
        "planfirst_waits_total",
        "counter",
        "Requests that asked to wait for a plan, by connection and outcome (served, refused, climbed, disconnected, room_full).",
        waits,
      );
      histogramFamily(
        lines,
        "planfirst_upstream_latency_seconds",
        "Time to upstream response headers.",
        LATENCY_BUCKETS_SECONDS,
        latency,
      );
      histogramFamily(
        lines,
        "planfirst_wait_seconds",
        "Time from arrival to answer of requests that waited for a plan, by connection.",
        WAIT_BUCKETS_SECONDS,
        waitLengths,
      );
      for (const gauge of gauges) {
        lines.push(`# HELP ${gauge.name} ${gauge.help}`);
        lines.push(`# TYPE ${gauge.name} gauge`);
        for (const sample of gauge.collect()) {
          if (Number.isFinite(sample.value)) {
            lines.push(`${gauge.name}${labelText(sample.labels)} ${sample.value}`);
          }
        }
      }
      return `${lines.join("\n")}\n`;
    },
  };
}

function family(
  lines: string[],
  name: string,
  type: string,
  help: string,
  values: Map<string, number>,
): void {
  lines.push(`# HELP ${name} ${help}`);
  lines.push(`# TYPE ${name} ${type}`);
  for (const [labels, value] of values) lines.push(`${name}${labels} ${value}`);
}

/** Adds one observation in milliseconds to the histogram of `connection` (created on first use). */
function observe(
  histograms: Map<string, Histogram>,
  bounds: readonly number[],
  connection: string,
  ms: number,
): void {
  let histogram = histograms.get(connection);
  if (!histogram) {
    histogram = {
      labels: labelText({ connection }),
      counts: bounds.map(() => 0),
      sum: 0,
      count: 0,
    };
    histograms.set(connection, histogram);
  }
  const seconds = ms / 1000;
  for (let i = 0; i < bounds.length; i++) {
    if (seconds <= bounds[i]!) histogram.counts[i]!++;
  }
  histogram.sum += seconds;
  histogram.count++;
}

function histogramFamily(
  lines: string[],
  name: string,
  help: string,
  bounds: readonly number[],
  histograms: Map<string, Histogram>,
): void {
  lines.push(`# HELP ${name} ${help}`);
  lines.push(`# TYPE ${name} histogram`);
  for (const histogram of histograms.values()) {
    const inner = histogram.labels.slice(1, -1);
    bounds.forEach((bound, i) => {
      lines.push(`${name}_bucket{${inner},le="${bound}"} ${histogram.counts[i]}`);
    });
    lines.push(`${name}_bucket{${inner},le="+Inf"} ${histogram.count}`);
    lines.push(`${name}_sum${histogram.labels} ${histogram.sum}`);
    lines.push(`${name}_count${histogram.labels} ${histogram.count}`);
  }
}

function labelText(labels: Record<string, string>): string {
  const parts = Object.entries(labels).map(
    ([key, value]) =>
      `${key}="${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`,
  );
  return `{${parts.join(",")}}`;
}
