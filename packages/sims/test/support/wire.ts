import { zipSync } from "fflate";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { createSim, type RunningSim, type SimDefinition } from "../../src/index.js";

export interface WireResponse {
  status: number;
  body: any;
  headers: Headers;
  bytes: Uint8Array;
}

export interface CallOptions {
  json?: unknown;
  form?: FormData;
  /** Replaces the default headers (auth included) entirely. */
  headers?: Record<string, string>;
  /** Merged over the default headers; a value of "" removes that header. */
  extraHeaders?: Record<string, string>;
}

export interface Wire {
  sim: RunningSim;
  call(method: string, path: string, opts?: CallOptions): Promise<WireResponse>;
  /** Like call, but fails the test unless the answer is 2xx. */
  ok(method: string, path: string, opts?: CallOptions | unknown): Promise<any>;
  control(method: string, path: string, body?: unknown): Promise<WireResponse>;
  close(): Promise<void>;
}

/**
 * One simulator for a test file, opened before its tests and closed after them, reset before each
 * test unless `reset` is false. The Wire answered may be taken at the top of the file: it speaks to
 * the simulator once it is open.
 */
export function useWire(open: () => Promise<Wire>, { reset = true } = {}): Wire {
  let w: Wire;
  beforeAll(async () => {
    w = await open();
  });
  afterAll(() => w.close());
  if (reset) beforeEach(() => w.sim.reset());
  return {
    get sim() {
      return w.sim;
    },
    call: (...args) => w.call(...args),
    ok: (...args) => w.ok(...args),
    control: (...args) => w.control(...args),
    close: () => w.close(),
  };
}

/** A `user.message` event with one text block. */
export const userText = (t: string) => ({ type: "user.message", content: [{ type: "text", text: t }] });

/**
 * Starts one simulator on an ephemeral loopback port and speaks its wire over real HTTP. Takes the
 * definition itself, so a suite depends on the simulator it tests and nothing else.
 */
export async function openWire(
  definition: SimDefinition<any>,
  defaults: (path: string) => Record<string, string>,
): Promise<Wire> {
  const sim = await createSim(definition, { quiet: true });
  async function send(url: string, method: string, headers: Record<string, string>, opts: CallOptions) {
    const h = { ...headers };
    let body: RequestInit["body"];
    if (opts.form) body = opts.form;
    else if (opts.json !== undefined) {
      body = JSON.stringify(opts.json);
      h["content-type"] = "application/json";
    }
    for (const [k, v] of Object.entries(h)) if (v === "") delete h[k];
    const res = await fetch(url, { method, headers: h, ...(body === undefined ? {} : { body }) });
    const bytes = new Uint8Array(await res.arrayBuffer());
    const text = Buffer.from(bytes).toString("utf8");
    let parsed: unknown = text;
    if ((res.headers.get("content-type") ?? "").includes("json")) parsed = JSON.parse(text);
    return { status: res.status, body: parsed as any, headers: res.headers, bytes };
  }
  const wire: Wire = {
    sim,
    call: (method, path, opts = {}) =>
      send(sim.url + path, method, opts.headers ?? { ...defaults(path), ...opts.extraHeaders }, opts),
    async ok(method, path, opts) {
      const o =
        opts &&
        typeof opts === "object" &&
        ("json" in opts || "form" in opts || "extraHeaders" in opts || "headers" in opts)
          ? (opts as CallOptions)
          : opts === undefined
            ? {}
            : { json: opts };
      const r = await wire.call(method, path, o);
      if (r.status < 200 || r.status >= 300) {
        throw new Error(`${method} ${path} answered ${r.status}: ${JSON.stringify(r.body)}`);
      }
      return r.body;
    },
    control: (method, path, body) =>
      send(`${sim.origin}/_sim${path}`, method, {}, body === undefined ? {} : { json: body }),
    close: () => sim.close(),
  };
  return wire;
}

/** A skill directory as multipart parts: provider_c sends one `files[]` part per file. */
export function skillForm(files: Record<string, string>, field = "files[]"): FormData {
  const form = new FormData();
  for (const [path, content] of Object.entries(files)) form.append(field, new Blob([content]), path);
  return form;
}

/** A skill directory as one zip part (provider_d's `files`). */
export function skillZipForm(files: Record<string, string>, zipName: string): FormData {
  const entries: Record<string, Uint8Array> = {};
  for (const [path, content] of Object.entries(files)) entries[path] = new TextEncoder().encode(content);
  const form = new FormData();
  form.append("files", new Blob([zipSync(entries)], { type: "application/zip" }), zipName);
  return form;
}

export function skillMd(name: string, description = "A test skill"): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n`;
}

export function fileForm(
  name: string,
  content: string,
  type = "text/markdown",
  extra: Record<string, string> = {},
): FormData {
  const form = new FormData();
  form.append("file", new Blob([content], { type }), name);
  for (const [k, v] of Object.entries(extra)) form.append(k, v);
  return form;
}

/**
 * Opens the SSE stream at `path`, runs `act` (what makes the session work), then reads until the
 * session goes idle or the stream ends, and closes it. Answers the stream's response and its text.
 */
export async function streamUntilIdle(
  w: Wire,
  path: string,
  headers: Record<string, string>,
  act: () => Promise<unknown>,
): Promise<{ res: Response; text: string }> {
  const controller = new AbortController();
  const res = await fetch(`${w.sim.url}${path}`, { headers, signal: controller.signal });
  await act();
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!text.includes("session.status_idle")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  controller.abort();
  return { res, text };
}
