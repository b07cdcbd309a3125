import { Agent, type Dispatcher, FormData, request } from "undici";

/**
 * The one place forge-mcp talks HTTP to the forge: every call has a timeout, and errors carry the
 * status and the forge's own message, never the request's credentials.
 */

export class ForgeHttpError extends Error {
  override name = "ForgeHttpError";
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
  }
}

/** Told of every forge call as it ends (metrics): method, status (0 when unreachable), seconds. */
export type ForgeCallListener = (method: string, status: number, seconds: number) => void;
const listeners = new Set<ForgeCallListener>();

/** Subscribes to every forge call of this process; returns the unsubscribe. */
export function onForgeCall(listener: ForgeCallListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * The forge client's own connection pool, from this package's undici. Without it, request() goes
 * through the process's global dispatcher, which on Node >= 22 is Node's bundled copy of undici;
 * on Node 24 that copy does not take this copy's FormData ("action is not a function"), so every
 * upload failed there. `npm run test:node-matrix` runs the upload tests on Node 22 and 24.
 */
const forgeDispatcher = new Agent();

function told(method: string, status: number, started: number): void {
  if (listeners.size === 0) return;
  const seconds = (performance.now() - started) / 1e3;
  for (const l of listeners) l(method, status, seconds);
}

/**
 * The deadline of every forge call, without a timer per call: each call's Deadline waits in one
 * set, and one sweep (every SWEEP_MS while any call is open) fires those whose time has come, which
 * aborts the request, or its body if the headers have come (undici takes any object with
 * `aborted`, `on`, `once` and `removeListener` as a signal). `AbortSignal.timeout` per call did the same
 * at a measured cost: an EventTarget, a timer and a weak reference each, alive as long as the
 * timeout (15 s) or until a collection cleared them, so under load tens of thousands of them
 * waited in the timer list (bench/results/forge-mcp-profile.md, fifth round).
 */
const SWEEP_MS = 50;
const open = new Set<Deadline>();
let sweep: NodeJS.Timeout | undefined;

class Deadline {
  aborted = false;
  reason: Error | undefined;
  private listener: (() => void) | undefined;
  constructor(readonly at: number) {}
  // undici asks for `on` to tell an emitter, and listens with `once`
  on(event: "abort", listener: () => void): void {
    this.once(event, listener);
  }
  once(_event: "abort", listener: () => void): void {
    this.listener = listener;
  }
  removeListener(_event: "abort", listener: () => void): void {
    if (this.listener === listener) this.listener = undefined;
  }
  fire(): void {
    this.aborted = true;
    this.reason = Object.assign(new Error("the forge did not answer in time"), { name: "TimeoutError" });
    const listener = this.listener;
    this.listener = undefined;
    listener?.();
  }
}

function sweepDeadlines(): void {
  const now = performance.now();
  for (const d of open)
    if (now >= d.at) {
      open.delete(d);
      d.fire();
    }
  if (open.size === 0 && sweep) {
    clearInterval(sweep);
    sweep = undefined;
  }
}

function deadline(timeoutMs: number): Deadline {
  const d = new Deadline(performance.now() + timeoutMs);
  open.add(d);
  if (!sweep) {
    sweep = setInterval(sweepDeadlines, SWEEP_MS);
    sweep.unref();
  }
  return d;
}

/** A forge answer's headers, read by name (any case), several values joined as fetch's Headers joins them. */
export interface ForgeHeaders {
  get(name: string): string | null;
  has(name: string): boolean;
}

interface ForgeResponse {
  status: number;
  headers: ForgeHeaders;
  body: unknown;
  text: string;
  /** With `headBytes`: the first bytes of a successful answer, and whether more were left unread. */
  bytes?: Buffer;
  truncated?: boolean;
}

export async function forgeFetch(
  url: string | URL,
  init: {
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    timeoutMs: number;
    /**
     * Read a successful answer as bytes, at most this many: `body` is then a Buffer, and an answer
     * longer than that is not read further (`ForgeTooLarge`). Errors are read as text, as always.
     */
    maxBytes?: number;
    /** One file sent as multipart `file` (uploads). */
    upload?: { filename: string; content: Buffer };
    /** A download: keep the first bytes of a 2xx answer, at most this many (the rest is not read). */
    headBytes?: number;
  },
): Promise<ForgeResponse> {
  // undici's request API rather than fetch: the same client underneath, without building WHATWG
  // Request/Response objects per call (a measurable share of a tools/call's CPU time).
  let res: Dispatcher.ResponseData;
  let text: string;
  let bytes: Buffer | undefined;
  let truncated = false;
  const started = performance.now();
  const method = init.method ?? "GET";
  const due = deadline(init.timeoutMs);
  try {
    res = await request(url, {
      dispatcher: forgeDispatcher,
      method: (init.method ?? "GET") as Dispatcher.HttpMethod,
      headers: { accept: "application/json", ...init.headers },
      body: init.upload ? multipart(init.upload) : init.body,
      signal: due as unknown as AbortSignal,
    });
    if (init.maxBytes !== undefined && res.statusCode >= 200 && res.statusCode < 300) {
      const bytes = await readBounded(res.body, init.maxBytes);
      told(method, res.statusCode, started);
      return { status: res.statusCode, headers: toHeaders(res.headers), body: bytes, text: "" };
    }
    if (init.headBytes !== undefined && res.statusCode >= 200 && res.statusCode < 300) {
      const chunks: Buffer[] = [];
      let n = 0;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        const room = init.headBytes - n;
        if (chunk.length > room) {
          chunks.push(chunk.subarray(0, room));
          truncated = true;
          break; // leaving the loop destroys the body: the rest is never read
        }
        chunks.push(chunk);
        n += chunk.length;
      }
      bytes = Buffer.concat(chunks);
      text = "";
    } else text = await res.body.text();
  } catch (err) {
    if (err instanceof ForgeTooLarge) throw err;
    const e = err as Error & { cause?: Error };
    const timedOut = due.aborted || e.name === "TimeoutError" || e.cause?.name === "TimeoutError";
    const reason = timedOut ? `timed out after ${init.timeoutMs} ms` : e.message;
    told(method, 0, started);
    throw new ForgeHttpError(0, `forge unreachable: ${reason}`, undefined);
  } finally {
    open.delete(due);
  }
  told(method, res.statusCode, started);
  const headers = toHeaders(res.headers);
  let body: unknown = text;
  if ((headers.get("content-type") ?? "").includes("json") && text !== "") {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  if (bytes) return { status: res.statusCode, headers, body: bytes, text, bytes, truncated };
  return { status: res.statusCode, headers, body, text };
}

// undici's own record of the headers (lower-case names), read in place: building a fetch Headers
// object per forge call cost more than the few reads of it
function toHeaders(raw: Dispatcher.ResponseData["headers"]): ForgeHeaders {
  const get = (name: string): string | null => {
    const v = raw[name.toLowerCase()];
    if (v === undefined) return null;
    return Array.isArray(v) ? v.join(", ") : v;
  };
  return { get, has: (name) => get(name) !== null };
}

/** A binary answer longer than the caller's bound: the rest is not read. */
export class ForgeTooLarge extends Error {
  override name = "ForgeTooLarge";
}

async function readBounded(body: Dispatcher.ResponseData["body"], max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > max) {
      body.destroy();
      throw new ForgeTooLarge(`the forge's answer is larger than ${max} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function multipart(file: { filename: string; content: Buffer }): FormData {
  const form = new FormData();
  form.append("file", new Blob([new Uint8Array(file.content)]), file.filename);
  return form;
}

/** GitLab answers errors as {message}, {error, error_description} or {error}; message may be an object. */
export function forgeMessage(status: number, body: unknown): string {
  if (body && typeof body === "object") {
    const b = body as Record<string, unknown>;
    const m = b.message ?? b.error_description ?? b.error;
    if (typeof m === "string") return m;
    if (m && typeof m === "object") return JSON.stringify(m);
  }
  if (typeof body === "string" && body.length > 0 && body.length < 300 && !body.trimStart().startsWith("<")) {
    return body;
  }
  return `HTTP ${status}`;
}
