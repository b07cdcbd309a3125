// The one HTTP client every provider adapter uses. It is the only module that calls fetch.
// Retries are limited to requests that are safe to repeat: GET/HEAD/PUT/DELETE, and POST only
// when the caller marks it idempotent, so a retried create can never duplicate a resource.

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

export interface HttpResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

export interface HttpClient {
  request<T = unknown>(req: HttpRequest): Promise<HttpResponse<T>>;
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
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
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
  byMethod: Record<string, number>;
}

export class ProviderHttpError extends Error {
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
    super(message);
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
}

export interface HttpEnvironment {
  policy?: Partial<RetryPolicy>;
  onRetry?: (notice: RetryNotice) => void;
  stats?: HttpStats;
  /** Injected for tests; defaults to a real timer. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
}

export function newHttpStats(): HttpStats {
  return { calls: 0, retries: 0, byMethod: {} };
}

/** Builds the factory adapters receive; one stats object counts calls across providers. */
export function createHttpClientFactory(env: HttpEnvironment = {}): HttpClientFactory & { stats: HttpStats } {
  const stats = env.stats ?? newHttpStats();
  const factory = (options: HttpClientOptions) => createHttpClient(options, { ...env, stats });
  return Object.assign(factory, { stats });
}

export function createHttpClient(options: HttpClientOptions, env: HttpEnvironment = {}): HttpClient {
  const policy = { ...DEFAULT_RETRY_POLICY, ...env.policy };
  const stats = env.stats ?? newHttpStats();
  const sleep = env.sleep ?? delay;
  const random = env.random ?? Math.random;
  const secrets = new Set<string>();
  const addSecret = (value: string) => {
    if (value && value.length >= 4) secrets.add(value);
  };
  for (const s of options.secrets ?? []) addSecret(s);
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (AUTH_HEADER_NAMES.test(name)) {
      addSecret(value);
      addSecret(value.replace(/^Bearer\s+/i, ""));
    }
  }
  const redact = (text: string) => {
    let out = text;
    for (const s of [...secrets].sort((a, b) => b.length - a.length)) out = out.split(s).join("[redacted]");
    return out;
  };
  const base = options.baseUrl.replace(/\/+$/, "");
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
    for (let attempt = 0; ; attempt++) {
      stats.calls++;
      stats.byMethod[req.method] = (stats.byMethod[req.method] ?? 0) + 1;
      let response: Response;
      try {
        response = await send(url, req, options.headers, req.timeoutMs ?? policy.timeoutMs);
      } catch (error) {
        if (req.signal?.aborted)
          throw new ProviderHttpError(
            `${where}: aborted`,
            options.provider,
            req.method,
            req.path,
            0,
            "aborted",
            false,
          );
        const reason = describeNetworkError(error);
        if (retryable && attempt < policy.maxRetries) {
          stats.retries++;
          const wait = backoff(attempt, policy, random);
          notify(req, reason, wait, attempt);
          await sleep(wait, req.signal);
          continue;
        }
        throw new ProviderHttpError(
          redact(`${where}: ${reason}${attempt > 0 ? ` (after ${attempt + 1} attempts)` : ""}`),
          options.provider,
          req.method,
          req.path,
          0,
          reason.startsWith("timed out") ? "timeout" : "network_error",
          false,
        );
      }
      if (response.ok || req.allowStatus?.includes(response.status)) {
        return {
          status: response.status,
          headers: response.headers,
          body: (await readBody(response, req)) as T,
        };
      }
      const body = await readBody(response, { ...req, responseType: "json" }).catch(() => undefined);
      if (retryable && RETRY_STATUSES.has(response.status) && attempt < policy.maxRetries) {
        stats.retries++;
        const wait = retryAfterMs(response.headers, policy) ?? backoff(attempt, policy, random);
        notify(req, String(response.status), wait, attempt);
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
  return { request, addSecret };
}

function buildUrl(base: string, path: string, query: HttpRequest["query"]): string {
  const url = new URL(base + (path.startsWith("/") ? path : `/${path}`));
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
  return url.toString();
}

async function send(
  url: string,
  req: HttpRequest,
  baseHeaders: Record<string, string> | undefined,
  timeoutMs: number,
): Promise<Response> {
  const headers: Record<string, string> = { accept: "application/json", ...baseHeaders, ...req.headers };
  let body: RequestInit["body"];
  if (req.json !== undefined) {
    body = JSON.stringify(req.json);
    headers["content-type"] = "application/json";
  } else if (req.body !== undefined) {
    body = req.body as RequestInit["body"];
  }
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout;
  try {
    return await fetch(url, { method: req.method, headers, body, signal });
  } catch (error) {
    if (timeout.aborted && !req.signal?.aborted) throw new Error(`timed out after ${timeoutMs} ms`);
    throw error;
  }
}

async function readBody(response: Response, req: HttpRequest): Promise<unknown> {
  if (req.method === "HEAD" || response.status === 204) return undefined;
  if (req.responseType === "bytes") return new Uint8Array(await response.arrayBuffer());
  const text = await response.text();
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

function describeNetworkError(error: unknown): string {
  if (error instanceof Error) {
    if (error.message.startsWith("timed out")) return error.message;
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    if (cause?.code) return `network error ${cause.code}`;
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
export function retryAfterMs(headers: Headers, policy: RetryPolicy, now = Date.now()): number | undefined {
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
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
