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
  headers: Record<string, string>;
}

export function redactHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    out[lower] = SECRET_HEADERS.has(lower) ? "[redacted]" : Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

/** A bounded request log: the newest `capacity` entries, numbered so a reader can ask for what is new. */
export class RequestLog {
  private entries: LogEntry[] = [];
  private seq = 0;
  constructor(private readonly capacity = 10_000) {}

  add(entry: Omit<LogEntry, "seq">): void {
    this.seq += 1;
    this.entries.push({ seq: this.seq, ...entry });
    if (this.entries.length > this.capacity) this.entries.splice(0, this.entries.length - this.capacity);
  }
  since(seq = 0): LogEntry[] {
    return this.entries.filter((e) => e.seq > seq);
  }
  clear(): void {
    this.entries = [];
  }
}
