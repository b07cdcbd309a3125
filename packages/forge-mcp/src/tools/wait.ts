import { z } from "zod";
import type { ApiResult } from "../forge/api.js";
import type { RunContext } from "./define.js";

/**
 * Server-side waiting for a pipeline or a job (wait_for_pipeline, wait_for_job,
 * play_pipeline_jobs): the forge is read every poll_interval_seconds (never more often than once a
 * second) until the object's status is final or timeout_seconds have passed. Each read is reported
 * as MCP progress when the caller asked for it; a cancelled request stops the wait at once.
 */

/** The statuses after which a pipeline or job changes no more by itself (as gitlab-mcp counts them). */
export const FINAL_STATUSES: ReadonlySet<string> = new Set([
  "success",
  "failed",
  "canceled",
  "skipped",
  "manual",
]);

/** The wait's bounds (their names and defaults are gitlab-mcp's; each is plain from its name). */
export const waitInput = {
  timeout_seconds: z.number().int().min(1).max(600).default(300),
  poll_interval_seconds: z.number().int().min(1).max(30).default(5),
};

export class WaitCancelled extends Error {
  constructor() {
    super("the wait was cancelled");
  }
}

/** Resolves after ms, or rejects with WaitCancelled as soon as the signal aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new WaitCancelled());
    const done = () => {
      clearTimeout(timer);
      reject(new WaitCancelled());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", done);
      resolve();
    }, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/** A read that stops waiting for its answer when the signal aborts. */
function unlessCancelled<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new WaitCancelled());
  return new Promise<T>((resolve, reject) => {
    const done = () => reject(new WaitCancelled());
    signal.addEventListener("abort", done, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", done));
  });
}

/**
 * One progress count for several waits in a row (play_pipeline_jobs): seconds since the first
 * began, out of all their timeouts, so it only grows from one wait to the next.
 */
export function batchProgress(call: RunContext, total: number): RunContext {
  const started = Date.now();
  return {
    signal: call.signal,
    progress: (_p, _t, message) => call.progress((Date.now() - started) / 1000, total, message),
  };
}

/**
 * Reads `read` until the answer's status is final: the last answer, or an error naming the last
 * status when the time is up. `what` names the object in progress messages and errors.
 */
export async function waitForFinal(
  read: () => Promise<ApiResult>,
  what: string,
  opts: { timeout_seconds: number; poll_interval_seconds: number },
  call: RunContext,
): Promise<ApiResult> {
  const started = Date.now();
  const deadline = started + opts.timeout_seconds * 1000;
  const intervalMs = Math.max(1, opts.poll_interval_seconds) * 1000;
  for (;;) {
    const r = await unlessCancelled(read(), call.signal);
    const status = String((r.data as { status?: unknown } | null)?.status ?? "unknown");
    const elapsed = (Date.now() - started) / 1000;
    await call.progress(elapsed, opts.timeout_seconds, `${what}: ${status}`);
    if (FINAL_STATUSES.has(status)) return r;
    const left = deadline - Date.now();
    if (left <= 0)
      throw new Error(`${what} is still ${status} after ${opts.timeout_seconds} s (timeout_seconds)`);
    await sleep(Math.min(intervalMs, left), call.signal);
  }
}
