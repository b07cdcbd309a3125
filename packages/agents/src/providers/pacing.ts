// Client-side pacing: one lane per provider and API key, shared by every request that key makes,
// so that a run stays inside the provider's request limit instead of finding it by 429s.
//
// A lane holds three gates, and a request is sent only when all three are open:
// - a pause, set by a 429 (or a 503/529 naming a Retry-After): nobody sends until it is over;
// - a token bucket mirroring the provider's own: its rate and size come from the limit headers
//   when the provider sends them (limit, remaining, time the bucket is full again), otherwise from
//   AIMD on 429s (the rate drops to 90 % of the throughput that met the limit, then climbs back by
//   about 2 % each second);
// - an in-flight cap: AIMD too (halved by a 429, 503 or 529, grows by one per window of answers).
// The lane keeps no timers when idle and none at all when nothing is queued.

import { whenAborted } from "./abort-watch.js";

/** Response headers by name, case-insensitive (what http.ts hands over). */
export interface ResponseHeaders {
  get(name: string): string | null;
}

/** What one answer's limit headers say (all optional: most providers send none). */
export interface LimitReading {
  /** Requests the bucket holds when full. */
  limit?: number;
  /** Whole requests left after this one. */
  remaining?: number;
  /** When the bucket is full again (epoch ms). */
  resetAtMs?: number;
  /** The refill rate, when the provider documents the limit's period (requests per second). */
  perSecond?: number;
}

/**
 * Reads the request-limit headers the providers send: provider_c's `anthropic-ratelimit-requests-*`
 * (reset as an RFC 3339 time), and the IETF draft's `RateLimit-Limit/-Remaining/-Reset` (reset in
 * seconds from now) that other APIs use.
 */
export function readLimitHeaders(headers: ResponseHeaders, nowMs: number): LimitReading {
  const num = (name: string) => {
    const raw = headers.get(name);
    if (raw === null || !/^\s*\d+(\.\d+)?\s*$/.test(raw)) return undefined;
    return Number(raw);
  };
  const reading: LimitReading = {};
  const limit = num("anthropic-ratelimit-requests-limit") ?? num("ratelimit-limit");
  const remaining = num("anthropic-ratelimit-requests-remaining") ?? num("ratelimit-remaining");
  if (limit !== undefined) reading.limit = limit;
  // provider_c documents its limit as requests per minute, refilled continuously.
  const perMinute = num("anthropic-ratelimit-requests-limit");
  if (perMinute !== undefined) reading.perSecond = perMinute / 60;
  if (remaining !== undefined) reading.remaining = remaining;
  const resetAt = headers.get("anthropic-ratelimit-requests-reset");
  if (resetAt !== null) {
    const at = Date.parse(resetAt);
    if (!Number.isNaN(at)) reading.resetAtMs = at;
  } else {
    const inSeconds = num("ratelimit-reset");
    if (inSeconds !== undefined) reading.resetAtMs = nowMs + inSeconds * 1000;
  }
  return reading;
}

export interface PacerClock {
  now(): number;
  /** Calls `fn` after `ms`; returns a function that cancels it. */
  schedule(fn: () => void, ms: number): () => void;
}

const realClock: PacerClock = {
  // Wall-clock time: the providers' reset times are wall-clock times.
  now: () => Date.now(),
  schedule(fn, ms) {
    const timer = setTimeout(fn, ms);
    return () => clearTimeout(timer);
  },
};

export interface PacerOptions {
  /** Most requests in flight at once; the cap grows back to it after a decrease. */
  maxInFlight?: number;
  /** Share of the provider's advertised rate the lane aims at (the rest absorbs jitter). */
  headroom?: number;
  clock?: PacerClock;
}

/** The answer to one paced request, as the lane learns from it. */
export interface Settlement {
  /** HTTP status; 0 when no answer came (network error, timeout, abort). */
  status: number;
  headers?: ResponseHeaders;
  /** The wait the provider asked for (Retry-After), already parsed and capped. */
  retryAfterMs?: number;
  /** When the request was granted (what `acquire` resolved with). */
  sentAtMs?: number;
}

export interface PacerSnapshot {
  /** Requests per second the lane paces to; Infinity while it knows no limit. */
  rate: number;
  /** Where the rate came from. */
  rateSource: "none" | "headers" | "aimd";
  inFlight: number;
  maxInFlight: number;
  queued: number;
  pausedForMs: number;
}

interface Waiter {
  grant: () => void;
  fail: (reason: unknown) => void;
}

const MIN_RATE = 0.2;
/**
 * Without headers the provider's bucket size is unknown: after a pause the lane sends at most a
 * fifth of a second's worth at once, not the whole refill, which the provider may not hold.
 */
const aimdBurst = (rate: number) => Math.max(1, rate / 5);
/** How far back the lane counts answers to know the throughput that met a limit. */
const THROUGHPUT_WINDOW_MS = 2_000;

export class Pacer {
  private rate = Number.POSITIVE_INFINITY;
  private rateSource: PacerSnapshot["rateSource"] = "none";
  /** Smoothed refill rate read from the limit headers (requests per second). */
  private advertised: number | undefined;
  /** When the rate was first read from the headers. */
  private headersSince = Number.POSITIVE_INFINITY;
  private headroom: number;
  private readonly maxHeadroom: number;
  private tokens = Number.POSITIVE_INFINITY;
  private capacity = Number.POSITIVE_INFINITY;
  private tokensAt: number;
  private inFlight = 0;
  /** When each request in flight was granted, oldest first. */
  private readonly sentTimes: number[] = [];
  /** The most the provider's bucket was seen to hold. */
  private seenFull = 1;
  private inFlightCap: number;
  private readonly maxInFlight: number;
  private pausedUntil = 0;
  /** When the rate or the in-flight cap was last decreased. */
  private decreasedAt = Number.NEGATIVE_INFINITY;
  private readonly queue: Waiter[] = [];
  private cancelTimer: (() => void) | undefined;
  private timerAt = 0;
  private readonly answered: number[] = [];
  private readonly clock: PacerClock;
  private readonly startedAt: number;

  constructor(options: PacerOptions = {}) {
    this.clock = options.clock ?? realClock;
    this.maxInFlight = Math.max(1, options.maxInFlight ?? 64);
    this.inFlightCap = this.maxInFlight;
    this.maxHeadroom = options.headroom ?? 0.98;
    this.headroom = this.maxHeadroom;
    this.tokensAt = this.clock.now();
    this.startedAt = this.tokensAt;
  }

  snapshot(): PacerSnapshot {
    return {
      rate: this.rate,
      rateSource: this.rateSource,
      inFlight: this.inFlight,
      maxInFlight: Math.floor(this.inFlightCap),
      queued: this.queue.length,
      pausedForMs: Math.max(0, this.pausedUntil - this.clock.now()),
    };
  }

  /**
   * Resolves, with the time it did, when the request may be sent; every grant must be followed by
   * one `settle` (given that time as `sentAtMs`).
   */
  acquire(signal?: AbortSignal): Promise<number> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.queue.length === 0 && this.tryTake()) return Promise.resolve(this.clock.now());
    return new Promise<number>((resolve, reject) => {
      // Every queued request of a run shares its signal: one listener for them all (abort-watch.ts).
      let stopWatching = () => {};
      const waiter: Waiter = {
        grant: () => {
          stopWatching();
          resolve(this.clock.now());
        },
        fail: (error) => {
          stopWatching();
          reject(error);
        },
      };
      if (signal)
        stopWatching = whenAborted(signal, () => {
          const i = this.queue.indexOf(waiter);
          if (i >= 0) this.queue.splice(i, 1);
          reject(signal.reason);
          this.pump();
        });
      this.queue.push(waiter);
      this.pump();
    });
  }

  /**
   * Learns from one answer. Returns the pause it started (ms) when this answer put the lane into
   * a pause it was not in: the caller says so once, however many requests wait behind it.
   */
  settle(outcome: Settlement): number | undefined {
    const now = this.clock.now();
    this.inFlight = Math.max(0, this.inFlight - 1);
    const sentAt = outcome.sentAtMs ?? this.sentTimes[0] ?? now;
    const own = this.sentTimes.indexOf(sentAt);
    this.sentTimes.splice(own >= 0 ? own : 0, 1);
    let startedPause: number | undefined;
    // Refused although it was sent at the pace the headers set (not before the lane knew them).
    const pacedByHeaders = this.rateSource === "headers" && (outcome.sentAtMs ?? now) >= this.headersSince;
    if (outcome.headers) this.learnHeaders(readLimitHeaders(outcome.headers, now), now, sentAt);
    const overloaded = outcome.status === 503 || outcome.status === 529;
    // One decrease per refusal episode: answers to requests sent before the last decrease tell
    // nothing new (they left at the old pace).
    const news = (outcome.sentAtMs ?? now) > this.decreasedAt;
    if (outcome.status === 429 && news) this.decreasedAt = now;
    if (outcome.status === 429) {
      if (!news) {
        // Already accounted for.
      } else if (pacedByHeaders) {
        // Paced by the headers and refused all the same: aim lower for a while.
        this.headroom = Math.max(0.5, this.headroom * 0.9);
        this.rate = Math.max(MIN_RATE, (this.advertised ?? this.rate) * this.headroom);
      } else if (this.rateSource !== "headers") {
        // No headers: the limit is what got through before the refusal (none yet: only the pause).
        const met = this.throughput(now);
        if (met > 0) {
          const next = Number.isFinite(this.rate) ? Math.min(this.rate * 0.9, met * 0.9) : met * 0.9;
          this.refillTo(now);
          this.rate = Math.max(MIN_RATE, next);
          this.rateSource = "aimd";
          this.capacity = aimdBurst(this.rate);
        }
      }
      if (Number.isFinite(this.rate)) {
        this.refillTo(now);
        this.tokens = Math.min(this.tokens, 0);
      }
      if (news) this.inFlightCap = Math.max(1, this.inFlightCap / 2);
      startedPause = this.pause(now, outcome.retryAfterMs ?? Math.max(1000 / this.rate, 250));
    } else if (overloaded) {
      if ((outcome.sentAtMs ?? now) > this.decreasedAt) {
        this.decreasedAt = now;
        this.inFlightCap = Math.max(1, this.inFlightCap / 2);
      }
      if (outcome.retryAfterMs !== undefined) startedPause = this.pause(now, outcome.retryAfterMs);
    } else if (outcome.status > 0) {
      this.answered.push(now);
      this.inFlightCap = Math.min(this.maxInFlight, this.inFlightCap + 1 / this.inFlightCap);
      if (this.rateSource === "aimd") {
        // Additive increase: about 2 % of the rate per second of answers (0.02 per answer).
        this.rate += 0.02;
        this.capacity = aimdBurst(this.rate);
      }
      if (this.rateSource === "headers" && this.headroom < this.maxHeadroom) {
        this.headroom = Math.min(this.maxHeadroom, this.headroom + 0.002);
        this.rate = (this.advertised ?? this.rate) * this.headroom;
      }
    }
    this.pump();
    return startedPause;
  }

  private pause(now: number, ms: number): number | undefined {
    const until = now + Math.max(0, ms);
    const wasPaused = this.pausedUntil > now;
    if (until > this.pausedUntil) this.pausedUntil = until;
    return wasPaused ? undefined : this.pausedUntil - now;
  }

  private learnHeaders(r: LimitReading, now: number, sentAt: number): void {
    if (r.limit === undefined || r.remaining === undefined || r.limit <= 0) return;
    if (r.perSecond !== undefined && r.perSecond > 0) {
      this.advertised = r.perSecond;
      this.rate = Math.max(MIN_RATE, this.advertised * this.headroom);
      if (this.rateSource !== "headers") this.headersSince = now;
      this.rateSource = "headers";
    } else if (r.resetAtMs !== undefined && r.remaining < r.limit) {
      // The provider read its bucket about half a round trip ago.
      const untilFullMs = r.resetAtMs - (sentAt + now) / 2;
      // A reset further than a day away, or already past, is a skewed clock: not a rate.
      if (untilFullMs > 0 && untilFullMs < 86_400_000) {
        const observed = ((r.limit - r.remaining) * 1000) / untilFullMs;
        this.advertised = this.advertised === undefined ? observed : this.advertised * 0.8 + observed * 0.2;
        this.rate = Math.max(MIN_RATE, this.advertised * this.headroom);
        if (this.rateSource !== "headers") this.headersSince = now;
        this.rateSource = "headers";
      }
    }
    // The bucket holds at most `limit`, and may hold less (a burst smaller than a minute's worth):
    // the most it was seen to hold is what the lane lets go at once.
    this.seenFull = Math.max(this.seenFull, r.remaining + 1);
    this.capacity = Math.min(r.limit, this.seenFull);
    // Without a rate the bucket could not refill: the count alone cannot gate anything.
    if (!Number.isFinite(this.rate)) return;
    // The provider's count is the truth, as of about half a round trip ago (it has refilled since);
    // requests sent after this one (still in flight, so most likely not in it yet) take from it too.
    let later = 0;
    for (const t of this.sentTimes) if (t > sentAt) later++;
    this.refillTo(now);
    const refilledSince = ((now - sentAt) / 2000) * this.rate;
    this.tokens = Math.min(this.tokens, r.remaining + 0.5 - later + refilledSince);
  }

  private throughput(now: number): number {
    while (this.answered.length > 0 && this.answered[0]! < now - THROUGHPUT_WINDOW_MS) this.answered.shift();
    const spanMs = Math.max(250, Math.min(THROUGHPUT_WINDOW_MS, now - this.startedAt));
    return (this.answered.length * 1000) / spanMs;
  }

  private refillTo(now: number): void {
    if (Number.isFinite(this.rate)) {
      const base = Number.isFinite(this.tokens) ? this.tokens : this.capacity;
      this.tokens = Math.min(this.capacity, base + ((now - this.tokensAt) * this.rate) / 1000);
    }
    this.tokensAt = now;
  }

  /** Takes a slot if every gate is open now. */
  private tryTake(): boolean {
    const now = this.clock.now();
    if (now < this.pausedUntil) return false;
    if (this.inFlight >= Math.floor(this.inFlightCap)) return false;
    this.refillTo(now);
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    this.inFlight += 1;
    this.sentTimes.push(now);
    return true;
  }

  private pump(): void {
    while (this.queue.length > 0 && this.tryTake()) this.queue.shift()!.grant();
    if (this.queue.length === 0 || this.inFlight >= Math.floor(this.inFlightCap)) {
      this.clearTimer();
      return;
    }
    // Blocked by the pause or the bucket: wake up when that opens (a settle may wake us sooner).
    const now = this.clock.now();
    const tokenAt = this.tokens < 1 ? now + ((1 - this.tokens) * 1000) / this.rate : now;
    const at = Math.max(this.pausedUntil, tokenAt);
    if (this.cancelTimer && this.timerAt <= at) return;
    this.clearTimer();
    this.timerAt = at;
    this.cancelTimer = this.clock.schedule(
      () => {
        this.cancelTimer = undefined;
        this.pump();
      },
      Math.max(1, Math.ceil(at - now)),
    );
  }

  private clearTimer(): void {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
  }
}
