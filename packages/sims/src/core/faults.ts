import type { NextFunction, Request, Response } from "express";
import { Prng } from "./prng.js";
import {
  type RateLimitConfig,
  type RateLimitHeaders,
  retryAfterOnly,
  TokenBuckets,
  validateRateLimit,
} from "./rate-limit.js";

/**
 * Fault injection. Random faults draw from a seeded PRNG, and rules count matching calls, so the
 * same configuration fails the same calls in every run: crash tests can say "fail call 7".
 */
export type FaultAction =
  | { type: "status"; status: number; body?: unknown; headers?: Record<string, string>; message?: string }
  | { type: "reset" }
  /**
   * Serves the request (the provider really creates or changes the object) and then cuts the
   * connection instead of answering: the crash case where a client cannot know its write landed.
   */
  | { type: "drop_response" }
  | { type: "rate_limit"; retryAfterSeconds?: number }
  | { type: "delay"; ms: number }
  /**
   * Parks the request until `POST /_sim/release` (or a reset or new fault configuration), then
   * serves it: a test can keep a client's call in flight for exactly as long as it needs.
   */
  | { type: "hold" };

export interface FaultRule {
  /** HTTP method to match; any when omitted. */
  method?: string;
  /** Regular expression (source) matched against the request path (without query). */
  path?: string;
  /** Fire on the nth matching call (1-based). */
  nth?: number;
  /** Fire on every matching call from the nth on (with `nth`), or on all matching calls (without). */
  repeat?: boolean;
  action: FaultAction;
}

export interface FaultConfig {
  seed?: number;
  latencyMs?: number;
  jitterMs?: number;
  /** Probability of answering 5xx (503) instead of serving the request. */
  errorRate?: number;
  /** Probability of answering 429 with Retry-After. */
  rateLimitRate?: number;
  retryAfterSeconds?: number;
  /** Probability of destroying the connection without an answer. */
  resetRate?: number;
  rules?: FaultRule[];
  /**
   * The provider's own request limit: a token bucket per API key (`x-api-key` or
   * `Authorization`), answered with the simulator's limit headers; `null` or absent: no limit.
   */
  rateLimit?: RateLimitConfig | null;
}

interface FaultDecision {
  delayMs: number;
  action?: FaultAction;
  label?: string;
  /** Headers every answer to this request carries (the provider's limit headers). */
  headers?: Record<string, string>;
}

interface CompiledRule extends FaultRule {
  regex?: RegExp;
  seen: number;
}

export class FaultInjector {
  private config: FaultConfig = {};
  private rules: CompiledRule[] = [];
  private prng = new Prng(1);
  private buckets: TokenBuckets | undefined;

  /** `rateHeaders` renders the simulator's limit headers (a 429 with `Retry-After` only, by default). */
  constructor(private readonly rateHeaders: RateLimitHeaders = retryAfterOnly) {}

  set(config: FaultConfig): void {
    validateFaultConfig(config);
    this.release();
    this.config = { ...config };
    this.buckets = config.rateLimit ? new TokenBuckets(config.rateLimit) : undefined;
    this.prng = new Prng(config.seed ?? 1);
    this.rules = (config.rules ?? []).map((r) => ({
      ...r,
      regex: r.path ? new RegExp(r.path) : undefined,
      seen: 0,
    }));
  }

  get(): FaultConfig & { counters: number[] } {
    return { ...this.config, counters: this.rules.map((r) => r.seen) };
  }

  clear(): void {
    this.set({});
  }

  private held: (() => void)[] = [];

  /** Resolves when the held request may go on. */
  hold(): Promise<void> {
    return new Promise((resolve) => this.held.push(resolve));
  }

  /** Lets every held request go on; returns how many there were. */
  release(): number {
    const waiting = this.held;
    this.held = [];
    for (const go of waiting) go();
    return waiting.length;
  }

  /** How many requests are parked right now. */
  heldCount(): number {
    return this.held.length;
  }

  /**
   * Decides what happens to one request. Called once per non-control request, in arrival order;
   * `key` is the caller's API key (the rate limit's bucket), `nowMs` the simulated clock.
   */
  decide(method: string, path: string, key = "", nowMs = Date.now()): FaultDecision {
    const c = this.config;
    let delayMs = c.latencyMs ?? 0;
    if (c.jitterMs) delayMs += this.prng.next() * c.jitterMs;

    // The limit comes first: a refused request never reached the provider, so rules do not count it.
    let headers: Record<string, string> | undefined;
    if (this.buckets) {
      const reading = this.buckets.take(key, nowMs);
      headers = this.rateHeaders(reading, !reading.allowed);
      if (!reading.allowed)
        return {
          delayMs,
          headers,
          action: { type: "status", status: 429, message: "rate limit exceeded" },
          label: "rate limit",
        };
    }
    const decision = this.decideFault(method, path, delayMs);
    return headers ? { ...decision, headers } : decision;
  }

  private decideFault(method: string, path: string, startDelayMs: number): FaultDecision {
    const c = this.config;
    let delayMs = startDelayMs;

    for (const [i, rule] of this.rules.entries()) {
      if (rule.method && rule.method.toUpperCase() !== method.toUpperCase()) continue;
      if (rule.regex && !rule.regex.test(path)) continue;
      rule.seen += 1;
      const fires =
        rule.nth === undefined ? true : rule.repeat ? rule.seen >= rule.nth : rule.seen === rule.nth;
      if (!fires) continue;
      if (rule.action.type === "delay") {
        delayMs += rule.action.ms;
        continue;
      }
      return { delayMs, action: rule.action, label: `rule ${i} (${rule.action.type}) on call ${rule.seen}` };
    }
    if (c.resetRate && this.prng.next() < c.resetRate)
      return { delayMs, action: { type: "reset" }, label: "random reset" };
    if (c.errorRate && this.prng.next() < c.errorRate) {
      return { delayMs, action: { type: "status", status: 503 }, label: "random 503" };
    }
    if (c.rateLimitRate && this.prng.next() < c.rateLimitRate) {
      return {
        delayMs,
        action: { type: "rate_limit", retryAfterSeconds: c.retryAfterSeconds ?? 1 },
        label: "random 429",
      };
    }
    return { delayMs };
  }
}

function validateFaultConfig(config: FaultConfig): void {
  const rate = (name: string, v: unknown) => {
    if (v !== undefined && (typeof v !== "number" || v < 0 || v > 1)) {
      throw new RangeError(`${name} must be a number between 0 and 1`);
    }
  };
  rate("errorRate", config.errorRate);
  rate("rateLimitRate", config.rateLimitRate);
  rate("resetRate", config.resetRate);
  validateRateLimit(config.rateLimit);
  for (const r of config.rules ?? []) {
    if (!r.action || typeof r.action !== "object") throw new TypeError("every rule needs an action");
    if (r.nth !== undefined && (!Number.isInteger(r.nth) || r.nth < 1))
      throw new RangeError("nth is 1-based");
    if (r.path) new RegExp(r.path);
  }
}

/**
 * Express middleware applying a decision. `errorBody` renders the provider's own error shape, so a
 * fault looks on the wire like the provider's real 503 or 429.
 */
/** The client closed its connection (killed, timed out) before its request was let through. */
function clientGone(req: Request): boolean {
  return req.socket.destroyed || (req.res?.destroyed ?? false);
}

export function faultMiddleware(
  injector: FaultInjector,
  errorBody: (status: number, message: string) => unknown,
  onFault: (req: Request, label: string) => void,
  nowMs: () => number = Date.now,
) {
  // Synchronous unless a delay is due: an async middleware costs every request a promise that
  // Express then has to watch.
  return (req: Request, res: Response, next: NextFunction) => {
    const key = req.headers["x-api-key"] ?? req.headers.authorization ?? "";
    const decision = injector.decide(req.method, req.path, String(key), nowMs());
    if (decision.delayMs <= 0) return void apply(decision, req, res, next);
    res.locals.delayedMs = Math.round(decision.delayMs);
    setTimeout(() => {
      // The latency stands for the time the request takes to reach the provider: a client that died
      // meanwhile never got its request there, so nothing is carried out (no route, no fault).
      if (clientGone(req)) return;
      try {
        apply(decision, req, res, next);
      } catch (err) {
        next(err);
      }
    }, decision.delayMs);
  };

  function apply(decision: FaultDecision, req: Request, res: Response, next: NextFunction): void {
    for (const [k, v] of Object.entries(decision.headers ?? {})) res.setHeader(k, v);
    const action = decision.action;
    if (!action) return void next();
    onFault(req, decision.label ?? action.type);
    switch (action.type) {
      case "reset":
        req.socket.destroy();
        return;
      case "drop_response": {
        // Whatever the handler answers, the bytes never leave: the socket is cut at the first write.
        const cut = (): never => {
          req.socket.destroy();
          return undefined as never;
        };
        res.writeHead = cut;
        res.write = cut;
        res.end = cut;
        return void next();
      }
      case "hold":
        void injector.hold().then(() => {
          if (!clientGone(req)) next();
        });
        return;
      case "rate_limit":
        res.setHeader("Retry-After", String(action.retryAfterSeconds ?? 1));
        res.status(429).json(errorBody(429, "rate limit exceeded (simulated)"));
        return;
      case "status":
        for (const [k, v] of Object.entries(action.headers ?? {})) res.setHeader(k, v);
        res
          .status(action.status)
          .json(action.body ?? errorBody(action.status, action.message ?? "simulated failure"));
        return;
      default:
        return void next();
    }
  }
}
