/** Headers whose values are credentials: the request log keeps their presence, never their value. */
const SECRET_HEADERS = new Set([
  "authorization",
  "x-api-key",
  "private-token",
  "job-token",
  "cookie",
  "set-cookie",
  "proxy-authorization",
]);

export interface LogEntry {
  seq: number;
  at: string;
  method: string;
  path: string;
  status: number;
  durationMs: number;
  fault?: string;
  /** Latency the fault injector added before the request reached its route (latency, jitter, delay rules). */
  delayedMs?: number;
  /** The response never finished: the client went away (an SSE reader closing) or a fault cut it. */
  aborted?: true;
  headers: Record<string, string>;
}

function redactHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    out[lower] = SECRET_HEADERS.has(lower) ? "[redacted]" : Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

/**
 * What the harness records per request. The timestamp stays a number and the headers stay the
 * request's own object until someone reads the log: formatting and redacting 10,000 requests a
 * second nobody reads was a measurable share of each request's cost (bench/results/sims.md).
 */
type RawLogEntry = Omit<LogEntry, "seq" | "at" | "headers"> & {
  atMs: number;
  headers: Record<string, string | string[] | undefined>;
};

/** A bounded request log: the newest `capacity` entries, numbered so a reader can ask for what is new. */
export class RequestLog {
  // Oldest first, with consecutive sequence numbers. It may hold up to twice `capacity` entries, so
  // dropping the oldest costs one copy per `capacity` additions rather than one per request.
  private entries: (RawLogEntry & { seq: number })[] = [];
  private seq = 0;
  constructor(private readonly capacity = 10_000) {}
  /** The sequence number of the last request logged: how many requests this simulator has logged. */
  get last(): number {
    return this.seq;
  }

  add(entry: RawLogEntry): void {
    this.seq += 1;
    this.entries.push({ seq: this.seq, ...entry });
    if (this.entries.length >= 2 * this.capacity) this.entries = this.entries.slice(-this.capacity);
  }
  since(seq = 0): LogEntry[] {
    const out: LogEntry[] = [];
    for (let i = Math.max(0, this.entries.length - this.capacity); i < this.entries.length; i++) {
      const e = this.entries[i]!;
      if (e.seq <= seq) continue;
      out.push({
        seq: e.seq,
        at: new Date(e.atMs).toISOString(),
        method: e.method,
        path: e.path,
        status: e.status,
        durationMs: e.durationMs,
        headers: redactHeaders(e.headers),
        ...(e.fault === undefined ? {} : { fault: e.fault }),
        ...(e.delayedMs === undefined ? {} : { delayedMs: e.delayedMs }),
        ...(e.aborted ? { aborted: true as const } : {}),
      });
    }
    return out;
  }
  clear(): void {
    this.entries = [];
  }
}
