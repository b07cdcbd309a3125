// The one HTTP client every provider adapter uses, and the only module that reaches the network.
// It speaks through node:http(s) with keep-alive agents rather than fetch: Node loads fetch's
// undici on first use (~40 ms of every command's start) and a fetch costs about four times the CPU
// of a plain request (bench/README.md). Redirects are not followed: a provider API that answers
// 3xx gets an error naming the status, and the API key never travels to another host.
// Retries of failures are limited to requests that are safe to repeat: GET/HEAD/PUT/DELETE, and
// POST only when the caller marks it idempotent, so a retried create can never duplicate a
// resource. A refusal is different: a 429, or a 503/529 naming a Retry-After, says the provider did
// not act, so any request (creates included) is sent again once the wait is over.
// Every request goes through its provider-and-key lane (pacing.ts), which keeps the run inside the
// provider's request limit; one lane is shared by every client of a factory that uses the same key.
import http from "node:http";
import https from "node:https";
import { redact as redactSecrets } from "../model/redact.js";
import { whenAborted } from "./abort-watch.js";
import { Pacer, type PacerOptions } from "./pacing.js";
import { UnforeseeableError } from "./unforeseeable.js";

export interface ParsedProviderError {
  code?: string;
  message?: string;
  /** The provider says the resource already exists (a create may adopt instead). */
  conflict?: boolean;
}
/** Per-provider error decoding, given as data to the client. */
export type ErrorParser = (status: number, body: unknown) => ParsedProviderError;

export interface HttpRequest {
  method: "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Path relative to the base URL, e.g. `/agents/agent_1`. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  json?: unknown;
  /** Raw body (multipart FormData, bytes or text); `json` wins when both are given. */
  body?: FormData | Uint8Array | string;
  headers?: Record<string, string>;
  /** POST that the provider treats as idempotent (or carries an idempotency key): may be retried. */
  idempotent?: boolean;
  /** Statuses returned as a response instead of thrown, e.g. [404] for reads. */
  allowStatus?: number[];
  /** `bytes` for downloads; default parses JSON and falls back to text. */
  responseType?: "json" | "bytes";
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** Response headers by name, case-insensitive (a `Headers` object satisfies it). */
export interface ResponseHeaders {
  get(name: string): string | null;
}

export interface HttpResponse<T = unknown> {
  status: number;
  headers: ResponseHeaders;
  body: T;
}

export interface HttpClient {
  request<T = unknown>(req: HttpRequest): Promise<HttpResponse<T>>;
  /**
   * Opens a long-lived GET (server-sent events) and hands back its body as text chunks as they
   * arrive; never retried (a caller that resumes knows from where). Clients built here have it.
   */
  stream?(req: StreamRequest): Promise<HttpStream>;
  /** Adds a value that must never appear in an error message (e.g. a secret sent in a body). */
  addSecret(value: string): void;
}

export interface HttpClientOptions {
  /** Provider label used in error messages. */
  provider: string;
  baseUrl: string;
  headers?: Record<string, string>;
  parseError?: ErrorParser;
  /** Secret values (API keys, resolved `${VAR}`s) redacted from every message. */
  secrets?: string[];
}

export type HttpClientFactory = (options: HttpClientOptions) => HttpClient;

export interface RetryPolicy {
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Upper bound on a server-requested Retry-After wait. */
  maxRetryAfterMs: number;
  timeoutMs: number;
  /** How often one request is sent again after a refusal (429, or 503/529 with Retry-After). */
  maxRefusals: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRefusals: 10,
  maxRetries: 4,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 30_000,
  timeoutMs: 30_000,
};

/** Counters for benchmarks and the "one read per resource" goal. */
export interface HttpStats {
  calls: number;
  retries: number;
  /** Answers that were 429. */
  rateLimited: number;
  byMethod: Record<string, number>;
}

/** The provider refused a request (`answer`) or never answered it (`network`, status 0). */
export class ProviderHttpError extends UnforeseeableError {
  override readonly name = "ProviderHttpError";
  constructor(
    message: string,
    readonly provider: string,
    readonly method: string,
    readonly path: string,
    /** 0 for network errors and timeouts. */
    readonly status: number,
    readonly code: string | undefined,
    readonly conflict: boolean,
  ) {
    super(status === 0 ? "network" : "answer", message);
  }
}

const SAFE_METHODS = new Set(["GET", "HEAD", "PUT", "DELETE"]);
const RETRY_STATUSES = new Set([408, 429, 500, 502, 503, 504, 529]);
const AUTH_HEADER_NAMES = /^(authorization|x-api-key|api-key|cookie|proxy-authorization)$/i;

/** One retry about to wait: shown by the CLI so a long retry loop is never silent. */
export interface RetryNotice {
  provider: string;
  method: string;
  path: string;
  /** The HTTP status, or the network failure ("connection reset", "timed out", ...). */
  cause: string;
  waitMs: number;
  /** The attempt about to be made (2 = first retry) and the most there will be. */
  attempt: number;
  maxAttempts: number;
  /**
   * Set when the provider refused (429, or 503/529 with Retry-After) and every request to it now
   * waits `waitMs`: said once per pause, not once per waiting request.
   */
  pause?: boolean;
}

export interface HttpEnvironment {
  policy?: Partial<RetryPolicy>;
  onRetry?: (notice: RetryNotice) => void;
  stats?: HttpStats;
  /** Injected for tests; defaults to a real timer. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  /** The lanes, by provider and key; a factory shares one map among its clients. */
  lanes?: Map<string, Pacer>;
  pacing?: PacerOptions;
}

export function newHttpStats(): HttpStats {
  return { calls: 0, retries: 0, rateLimited: 0, byMethod: {} };
}

/** Builds the factory adapters receive; one stats object counts calls across providers. */
export function createHttpClientFactory(
  env: HttpEnvironment = {},
): HttpClientFactory & { stats: HttpStats; lanes: Map<string, Pacer> } {
  const stats = env.stats ?? newHttpStats();
  const lanes = env.lanes ?? new Map<string, Pacer>();
  const factory = (options: HttpClientOptions) => createHttpClient(options, { ...env, stats, lanes });
  return Object.assign(factory, { stats, lanes });
}

export function createHttpClient(options: HttpClientOptions, env: HttpEnvironment = {}): HttpClient {
  const policy = { ...DEFAULT_RETRY_POLICY, ...env.policy };
  const stats = env.stats ?? newHttpStats();
  const sleep = env.sleep ?? delay;
  const random = env.random ?? Math.random;
  const secrets = new Set<string>();
  const addSecret = (value: string) => {
    secrets.add(value);
  };
  for (const s of options.secrets ?? []) addSecret(s);
  let credential = "";
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (AUTH_HEADER_NAMES.test(name)) {
      addSecret(value);
      addSecret(value.replace(/^Bearer\s+/i, ""));
      credential += `${name.toLowerCase()}=${value}\n`;
    }
  }
  // One lane per provider and key: the key stays in memory as a map key only.
  const lanes = env.lanes ?? new Map<string, Pacer>();
  const laneKey = `${options.provider}\n${credential}`;
  let lane = lanes.get(laneKey);
  if (!lane) {
    lane = new Pacer(env.pacing);
    lanes.set(laneKey, lane);
  }
  const pacer = lane;
  // Secrets may be added after creation (addSecret), so the rule is applied to the set as it is now.
  const redact = (text: string) => redactSecrets(text, secrets);
  const base = options.baseUrl.replace(/\/+$/, "");
  // Named in network errors, so a wrong base URL or AGENTS_BASE_URL_* shows which host was tried.
  const origin = originOf(base);
  const notify = (req: HttpRequest, cause: string, waitMs: number, attempt: number) =>
    env.onRetry?.({
      provider: options.provider,
      method: req.method,
      path: req.path,
      cause: redact(cause),
      waitMs,
      attempt: attempt + 2,
      maxAttempts: policy.maxRetries + 1,
    });

  async function request<T>(req: HttpRequest): Promise<HttpResponse<T>> {
    const url = buildUrl(base, req.path, req.query);
    const retryable = SAFE_METHODS.has(req.method) || req.idempotent === true;
    const where = `${options.provider} ${req.method} ${req.path}`;
    const aborted = () =>
      new ProviderHttpError(`${where}: aborted`, options.provider, req.method, req.path, 0, "aborted", false);
    let refusals = 0;
    for (let attempt = 0; ; attempt++) {
      let sentAtMs: number;
      try {
        sentAtMs = await pacer.acquire(req.signal);
      } catch {
        throw aborted();
      }
      stats.calls++;
      stats.byMethod[req.method] = (stats.byMethod[req.method] ?? 0) + 1;
      let response: RawResponse;
      try {
        response = await send(url, req, options.headers, req.timeoutMs ?? policy.timeoutMs);
      } catch (error) {
        pacer.settle({ status: 0, sentAtMs });
        if (req.signal?.aborted) throw aborted();
        const reason = describeNetworkError(error);
        if (retryable && attempt - refusals < policy.maxRetries) {
          stats.retries++;
          const wait = backoff(attempt - refusals, policy, random);
          notify(req, reason, wait, attempt - refusals);
          await sleep(wait, req.signal);
          continue;
        }
        throw new ProviderHttpError(
          redact(
            `${where}: ${reason} reaching ${origin}${attempt > 0 ? ` (after ${attempt + 1} attempts)` : ""}`,
          ),
          options.provider,
          req.method,
          req.path,
          0,
          reason.startsWith("timed out") ? "timeout" : "network_error",
          false,
        );
      }
      const status = response.status;
      const retryAfter = retryAfterMs(response.headers, policy);
      const refused = status === 429 || ((status === 503 || status === 529) && retryAfter !== undefined);
      const pausedMs = pacer.settle({
        status,
        sentAtMs,
        headers: response.headers,
        ...(retryAfter !== undefined ? { retryAfterMs: retryAfter } : {}),
      });
      if (status === 429) stats.rateLimited++;
      if (pausedMs !== undefined)
        env.onRetry?.({
          provider: options.provider,
          method: req.method,
          path: req.path,
          cause: status === 429 ? "rate limited" : `${status} (overloaded)`,
          waitMs: pausedMs,
          attempt: attempt + 2,
          maxAttempts: policy.maxRefusals + 1,
          pause: true,
        });
      const ok = status >= 200 && status < 300;
      if (ok || req.allowStatus?.includes(status)) {
        return {
          status: response.status,
          headers: response.headers,
          body: readBody(response, req) as T,
        };
      }
      const body = readBody(response, { ...req, responseType: "json" });
      // The provider did not act: send it again, whatever the method, once the lane's pause is over.
      if (refused && refusals < policy.maxRefusals) {
        refusals++;
        stats.retries++;
        continue;
      }
      if (retryable && RETRY_STATUSES.has(response.status) && attempt - refusals < policy.maxRetries) {
        stats.retries++;
        const wait = retryAfter ?? backoff(attempt - refusals, policy, random);
        notify(req, String(response.status), wait, attempt - refusals);
        await sleep(wait, req.signal);
        continue;
      }
      const parsed = safeParse(options.parseError, response.status, body);
      const code = parsed.code ?? `http_${response.status}`;
      const detail = parsed.message ?? (typeof body === "string" ? body.slice(0, 200) : response.statusText);
      throw new ProviderHttpError(
        redact(`${where}: ${response.status} ${code}: ${detail}`),
        options.provider,
        req.method,
        req.path,
        response.status,
        parsed.code,
        parsed.conflict ?? response.status === 409,
      );
    }
  }
  async function stream(req: StreamRequest): Promise<HttpStream> {
    const url = buildUrl(base, req.path, req.query);
    const where = `${options.provider} GET ${req.path}`;
    const fail = (status: number, code: string | undefined, message: string) =>
      new ProviderHttpError(
        redact(`${where}: ${message}`),
        options.provider,
        "GET",
        req.path,
        status,
        code,
        false,
      );
    // Opening a stream is a request like any other on the lane: it waits for the lane's pace, its
    // answer's limit headers teach the lane, and a refusal (429) pauses the lane and is sent again
    // once the pause is over. The open stream then holds no place in the lane.
    let opened: OpenedStream;
    for (let refusals = 0; ; refusals++) {
      let sentAtMs: number;
      try {
        sentAtMs = await pacer.acquire(req.signal);
      } catch {
        throw fail(0, "aborted", "aborted");
      }
      stats.calls++;
      stats.byMethod.GET = (stats.byMethod.GET ?? 0) + 1;
      try {
        opened = await openStream(url, { ...options.headers, ...req.headers }, req.signal);
      } catch (error) {
        pacer.settle({ status: 0, sentAtMs });
        if (req.signal?.aborted) throw fail(0, "aborted", "aborted");
        throw fail(0, "network_error", describeNetworkError(error));
      }
      const retryAfter = retryAfterMs(opened.headers, policy);
      pacer.settle({
        status: opened.status,
        sentAtMs,
        headers: opened.headers,
        ...(retryAfter !== undefined ? { retryAfterMs: retryAfter } : {}),
      });
      if (opened.status !== 429) break;
      stats.rateLimited++;
      if (refusals >= policy.maxRefusals) break;
      await opened.rest().catch(() => "");
      stats.retries++;
    }
    if (opened.status < 200 || opened.status >= 300) {
      const text = await opened.rest();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {}
      const parsed = safeParse(options.parseError, opened.status, body);
      throw fail(
        opened.status,
        parsed.code,
        `${opened.status} ${parsed.code ?? `http_${opened.status}`}: ${parsed.message ?? text.slice(0, 200)}`,
      );
    }
    return { status: opened.status, chunks: opened.chunks, close: opened.close };
  }
  return { request, addSecret, stream };
}

export interface StreamRequest {
  path: string;
  query?: HttpRequest["query"];
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** Node's header object, read by name (any case), several values joined as fetch joins them. */
function headerReader(raw: http.IncomingHttpHeaders): ResponseHeaders {
  return {
    get: (name) => {
      const value = raw[name.toLowerCase()];
      return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
    },
  };
}

/** An open event stream: its body as text chunks; `close` ends it from our side. */
export interface HttpStream {
  status: number;
  chunks: AsyncIterable<string>;
  close(): void;
}

interface OpenedStream extends HttpStream {
  headers: ResponseHeaders;
  /** The whole remaining body (for an error answer). */
  rest(): Promise<string>;
}

/** A GET whose answer is read as it arrives, on its own connection (never the keep-alive pool). */
function openStream(
  url: string,
  headers: Record<string, string>,
  signal?: AbortSignal,
): Promise<OpenedStream> {
  const target = new URL(url);
  const client = target.protocol === "https:" ? https : http;
  return new Promise<OpenedStream>((resolve, reject) => {
    const request = client.request(
      target,
      { method: "GET", headers: { accept: "text/event-stream", ...headers }, agent: false },
      (response) => {
        response.setEncoding("utf8");
        const close = () => request.destroy();
        resolve({
          status: response.statusCode ?? 0,
          headers: headerReader(response.headers),
          chunks: response as AsyncIterable<string>,
          close,
          rest: async () => {
            let text = "";
            for await (const chunk of response as AsyncIterable<string>) text += chunk;
            return text;
          },
        });
      },
    );
    const stopListening = signal
      ? whenAborted(signal, () => request.destroy(new Error("aborted")))
      : undefined;
    request.on("close", () => stopListening?.());
    request.on("error", reject);
    request.end();
  });
}

function buildUrl(base: string, path: string, query: HttpRequest["query"]): string {
  const url = new URL(base + (path.startsWith("/") ? path : `/${path}`));
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
  return url.toString();
}

/** A whole response: status, headers and body bytes. */
interface RawResponse {
  status: number;
  statusText: string;
  headers: ResponseHeaders;
  bytes: Buffer;
}

// Keep-alive connections, shared by every client of the process; idle sockets do not hold the
// process open (Node unrefs them).
const agents = {
  "http:": new http.Agent({ keepAlive: true, scheduling: "lifo" }),
  "https:": new https.Agent({ keepAlive: true, scheduling: "lifo" }),
};

async function send(
  url: string,
  req: HttpRequest,
  baseHeaders: Record<string, string> | undefined,
  timeoutMs: number,
): Promise<RawResponse> {
  const headers: Record<string, string> = { accept: "application/json", ...baseHeaders, ...req.headers };
  let body: Buffer | undefined;
  if (req.json !== undefined) {
    body = Buffer.from(JSON.stringify(req.json), "utf8");
    headers["content-type"] = "application/json";
  } else if (typeof req.body === "string" || req.body instanceof Uint8Array) {
    body = Buffer.from(req.body);
  } else if (req.body !== undefined) {
    // Multipart: the platform encodes the form (boundary included) once, and it is sent as bytes.
    const encoded = new Response(req.body);
    headers["content-type"] = encoded.headers.get("content-type") ?? "multipart/form-data";
    body = Buffer.from(await encoded.arrayBuffer());
  }
  if (body !== undefined) headers["content-length"] = String(body.length);
  const target = new URL(url);
  const client = target.protocol === "https:" ? https : http;
  return new Promise<RawResponse>((resolve, reject) => {
    const request = client.request(
      target,
      {
        method: req.method,
        headers,
        agent: agents[target.protocol as keyof typeof agents],
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("error", fail);
        response.on("end", () => {
          clearTimeout(timer);
          resolve({
            status: response.statusCode ?? 0,
            statusText: response.statusMessage ?? "",
            headers: headerReader(response.headers),
            bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks),
          });
        });
      },
    );
    function fail(error: Error) {
      clearTimeout(timer);
      reject(error);
    }
    // The whole exchange, not only an idle socket, has timeoutMs.
    const timer = setTimeout(() => request.destroy(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
    const stopListening = req.signal
      ? whenAborted(req.signal, () => request.destroy(new Error("aborted")))
      : undefined;
    request.on("close", () => stopListening?.());
    request.on("error", fail);
    request.end(body);
  });
}

function readBody(response: RawResponse, req: HttpRequest): unknown {
  if (req.method === "HEAD" || response.status === 204) return undefined;
  if (req.responseType === "bytes") return new Uint8Array(response.bytes);
  const text = response.bytes.toString("utf8");
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function safeParse(parser: ErrorParser | undefined, status: number, body: unknown): ParsedProviderError {
  if (!parser) return {};
  try {
    return parser(status, body);
  } catch {
    return {};
  }
}

/** scheme://host[:port] of a base URL, without any user info or path. */
function originOf(base: string): string {
  try {
    return new URL(base).origin;
  } catch {
    return base;
  }
}

function describeNetworkError(error: unknown): string {
  if (error instanceof Error) {
    if (error.message.startsWith("timed out")) return error.message;
    const code = (error as { code?: string }).code ?? (error as { cause?: { code?: string } }).cause?.code;
    if (code) return `network error ${code}`;
    return `network error: ${error.message}`;
  }
  return "network error";
}

/** Exponential backoff with full jitter, capped. */
export function backoff(attempt: number, policy: RetryPolicy, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** Retry-After as seconds or an HTTP date; capped so a hostile value cannot park a run. */
export function retryAfterMs(
  headers: ResponseHeaders,
  policy: RetryPolicy,
  now = Date.now(),
): number | undefined {
  const raw = headers.get("retry-after-ms") ?? undefined;
  if (raw !== undefined && /^\d+(\.\d+)?$/.test(raw)) return Math.min(Number(raw), policy.maxRetryAfterMs);
  const value = headers.get("retry-after");
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.min(Number(value) * 1000, policy.maxRetryAfterMs);
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.min(Math.max(0, date - now), policy.maxRetryAfterMs);
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts: every wait in the providers. */
export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      stopWatching();
      resolve();
    }, ms);
    const stopWatching = signal
      ? whenAborted(signal, () => {
          clearTimeout(timer);
          reject(signal.reason);
        })
      : () => {};
  });
}
