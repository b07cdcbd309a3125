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
   * arrive. A refusal (429, or 503/529 with Retry-After) is waited out and sent again as for any
   * request; a failure is not retried (a caller that resumes knows from where). Clients built
   * here have it.
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
    /**
     * The provider refused every sending (429, or 503/529 with Retry-After) until the request's
     * refusals were spent: sending it again at once would only be refused again.
     */
    readonly refused = false,
  ) {
    super(status === 0 ? "network" : "answer", message);
  }
}

/** A 429, or a 503/529 naming a wait: the provider says it did not act on the request. */
function isRefusal(status: number, retryAfterMs: number | undefined): boolean {
  return status === 429 || ((status === 503 || status === 529) && retryAfterMs !== undefined);
}

/** What the user can do once a refusal outlasted every sending (said after the provider's own words). */
function refusalAdvice(provider: string, status: number, attempts: number): string {
  return status === 429
    ? `${provider} kept refusing this API key over its request limit (${attempts} attempts): wait a minute and run the command again, or ask ${provider} for a higher limit`
    : `${provider} was overloaded and refused all ${attempts} attempts: try again in a few minutes`;
}

/** One request as the lane and the messages know it. */
interface Exchange {
  method: string;
  path: string;
  signal?: AbortSignal;
  /** Statuses the caller takes as an answer (never sent again, even a refusal). */
  allowStatus?: number[];
}

/** How often one request was sent, and how many of those sendings were refused. */
interface Tally {
  sent: number;
  refusals: number;
}

/** What an error message is made from: a whole answer or an opened stream's status line. */
interface Answer {
  status: number;
  statusText: string;
  headers: ResponseHeaders;
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

  const abortedError = (method: string, path: string) =>
    new ProviderHttpError(
      `${options.provider} ${method} ${path}: aborted`,
      options.provider,
      method,
      path,
      0,
      "aborted",
      false,
    );

  /**
   * Sends one request on the lane, again and again while the provider refuses it (a 429, or a
   * 503/529 naming a Retry-After: it did not act, so any request may go again) and the request's
   * refusals are not spent: each sending waits for the lane (a refusal pauses it for the wait
   * asked, capped at maxRetryAfterMs), teaches it from the answer, and the sending whose answer
   * started a pause says so once (`onRetry`, `pause`). Ordinary calls and stream opens both go
   * through here, so both wait, retry and say so alike. A network failure settles the lane and is
   * thrown as it came; `drain` reads a refused answer's body before it is sent again.
   */
  async function onLane<A extends { status: number; headers: ResponseHeaders }>(
    exchange: Exchange,
    tally: Tally,
    send: () => Promise<A>,
    drain: (answer: A) => Promise<unknown> | undefined = () => undefined,
  ): Promise<A> {
    for (;;) {
      let sentAtMs: number;
      try {
        sentAtMs = await pacer.acquire(exchange.signal);
      } catch {
        throw abortedError(exchange.method, exchange.path);
      }
      stats.calls++;
      stats.byMethod[exchange.method] = (stats.byMethod[exchange.method] ?? 0) + 1;
      tally.sent++;
      let answer: A;
      try {
        answer = await send();
      } catch (error) {
        pacer.settle({ status: 0, sentAtMs });
        throw error;
      }
      const status = answer.status;
      const retryAfter = retryAfterMs(answer.headers, policy);
      const pausedMs = pacer.settle({
        status,
        sentAtMs,
        headers: answer.headers,
        ...(retryAfter !== undefined ? { retryAfterMs: retryAfter } : {}),
      });
      if (status === 429) stats.rateLimited++;
      if (pausedMs !== undefined)
        env.onRetry?.({
          provider: options.provider,
          method: exchange.method,
          path: exchange.path,
          cause: status === 429 ? "rate limited" : `${status} (overloaded)`,
          waitMs: pausedMs,
          attempt: tally.sent + 1,
          maxAttempts: policy.maxRefusals + 1,
          pause: true,
        });
      if (!isRefusal(status, retryAfter) || exchange.allowStatus?.includes(status)) return answer;
      if (tally.refusals >= policy.maxRefusals) return answer;
      tally.refusals++;
      stats.retries++;
      await drain(answer);
    }
  }

  /** The error for an answer that is not a success; a refusal that outlasted every sending says what to do. */
  function answerError(exchange: Exchange, tally: Tally, answer: Answer, body: unknown): ProviderHttpError {
    const { status } = answer;
    const parsed = safeParse(options.parseError, status, body);
    const code = parsed.code ?? `http_${status}`;
    const detail = parsed.message ?? (typeof body === "string" ? body.slice(0, 200) : answer.statusText);
    const refused = isRefusal(status, retryAfterMs(answer.headers, policy));
    const advice = refused ? `; ${refusalAdvice(options.provider, status, tally.sent)}` : "";
    return new ProviderHttpError(
      redact(
        `${options.provider} ${exchange.method} ${exchange.path}: ${status} ${code}: ${detail}${advice}`,
      ),
      options.provider,
      exchange.method,
      exchange.path,
      status,
      parsed.code,
      parsed.conflict ?? status === 409,
      refused,
    );
  }

  async function request<T>(req: HttpRequest): Promise<HttpResponse<T>> {
    const url = buildUrl(base, req.path, req.query);
    const retryable = SAFE_METHODS.has(req.method) || req.idempotent === true;
    const where = `${options.provider} ${req.method} ${req.path}`;
    const tally: Tally = { sent: 0, refusals: 0 };
    // Retries of failures (network errors, 408/5xx) on top of the refusals onLane sends again.
    for (let retries = 0; ; retries++) {
      let response: RawResponse;
      try {
        response = await onLane(req, tally, () =>
          send(url, req, options.headers, req.timeoutMs ?? policy.timeoutMs),
        );
      } catch (error) {
        if (error instanceof ProviderHttpError) throw error;
        if (req.signal?.aborted) throw abortedError(req.method, req.path);
        const reason = describeNetworkError(error);
        if (retryable && retries < policy.maxRetries) {
          stats.retries++;
          const wait = backoff(retries, policy, random);
          notify(req, reason, wait, retries);
          await sleep(wait, req.signal);
          continue;
        }
        throw new ProviderHttpError(
          redact(
            `${where}: ${reason} reaching ${origin}${tally.sent > 1 ? ` (after ${tally.sent} attempts)` : ""}`,
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
      if ((status >= 200 && status < 300) || req.allowStatus?.includes(status)) {
        return {
          status: response.status,
          headers: response.headers,
          body: readBody(response, req) as T,
        };
      }
      if (retryable && RETRY_STATUSES.has(status) && retries < policy.maxRetries) {
        stats.retries++;
        const wait = retryAfterMs(response.headers, policy) ?? backoff(retries, policy, random);
        notify(req, String(status), wait, retries);
        await sleep(wait, req.signal);
        continue;
      }
      throw answerError(req, tally, response, readBody(response, { ...req, responseType: "json" }));
    }
  }
  async function stream(req: StreamRequest): Promise<HttpStream> {
    const url = buildUrl(base, req.path, req.query);
    const exchange: Exchange = {
      method: "GET",
      path: req.path,
      ...(req.signal ? { signal: req.signal } : {}),
    };
    // Opening a stream is a request like any other on the lane (onLane): it waits for the lane's
    // pace, its answer's limit headers teach the lane, and a refusal pauses the lane, is said once
    // and is sent again once the pause is over. The open stream then holds no place in the lane.
    // A failure (network error, 5xx without Retry-After) is not retried here: the caller resumes.
    const tally: Tally = { sent: 0, refusals: 0 };
    let opened: OpenedStream;
    try {
      opened = await onLane(
        exchange,
        tally,
        () => openStream(url, { ...options.headers, ...req.headers }, req.signal),
        (refused) => refused.rest().catch(() => ""),
      );
    } catch (error) {
      if (error instanceof ProviderHttpError) throw error;
      if (req.signal?.aborted) throw abortedError("GET", req.path);
      throw new ProviderHttpError(
        redact(`${options.provider} GET ${req.path}: ${describeNetworkError(error)}`),
        options.provider,
        "GET",
        req.path,
        0,
        "network_error",
        false,
      );
    }
    if (opened.status < 200 || opened.status >= 300) {
      const text = await opened.rest();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {}
      throw answerError(exchange, tally, { ...opened, statusText: text.slice(0, 200) }, body);
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
