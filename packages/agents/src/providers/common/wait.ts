// Bounded polling for the provider-side processing of docs/wire/provider-a.md §3.3 and §3.4 (file audits,
// skill scans). The wait is visible: the caller is told once when it starts and how long it may take, and
// the timeout error says what was still pending.
import { delay } from "../http.js";
import { UnforeseeableError } from "../unforeseeable.js";

export interface PollPolicy {
  initialMs: number;
  factor: number;
  maxDelayMs: number;
  timeoutMs: number;
}

interface PollOptions<T> {
  what: string;
  policy: PollPolicy;
  read(): Promise<T>;
  /** "done" ends the wait, "failed" throws, "pending" polls again. */
  classify(value: T): "done" | "pending" | { failed: string };
  onWait?(message: string): void;
  signal?: AbortSignal;
  /** Injected by tests; defaults to a real timer. */
  sleep?(ms: number, signal?: AbortSignal): Promise<void>;
  now?(): number;
}

/** The provider was still working when the wait ran out. */
export class WaitTimeoutError extends UnforeseeableError {
  override readonly name = "WaitTimeoutError";
  constructor(message: string) {
    super("answer", message);
  }
}

export async function pollUntil<T>(opts: PollOptions<T>): Promise<T> {
  const sleep = opts.sleep ?? delay;
  const now = opts.now ?? Date.now;
  const started = now();
  let interval = opts.policy.initialMs;
  let announced = false;
  for (;;) {
    const value = await opts.read();
    const verdict = opts.classify(value);
    if (verdict === "done") return value;
    if (verdict !== "pending")
      throw new UnforeseeableError("answer", `${opts.what} failed: ${verdict.failed}`);
    const elapsed = now() - started;
    if (elapsed >= opts.policy.timeoutMs) {
      throw new WaitTimeoutError(
        `${opts.what} still pending after ${Math.round(elapsed / 1000)} s (limit ${Math.round(opts.policy.timeoutMs / 1000)} s); run apply again later`,
      );
    }
    if (!announced) {
      opts.onWait?.(`waiting for ${opts.what} (up to ${Math.round(opts.policy.timeoutMs / 1000)} s)`);
      announced = true;
    }
    await sleep(Math.min(interval, Math.max(0, opts.policy.timeoutMs - elapsed)), opts.signal);
    interval = Math.min(opts.policy.maxDelayMs, interval * opts.policy.factor);
  }
}

/** Retries `action` after each delay while `retryable(error)` holds (e.g. 1, 2, 4, 8 s). */
export async function retryWithDelays<T>(
  action: () => Promise<T>,
  delaysMs: readonly number[],
  retryable: (error: unknown) => boolean,
  sleep: (ms: number, signal?: AbortSignal) => Promise<void> = delay,
  signal?: AbortSignal,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await action();
    } catch (error) {
      const wait = delaysMs[attempt];
      if (wait === undefined || !retryable(error)) throw error;
      await sleep(wait, signal);
    }
  }
}
