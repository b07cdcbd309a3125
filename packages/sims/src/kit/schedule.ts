import { Cron } from "croner";

/** Parses a 5-field cron expression in an IANA zone; undefined when either is invalid. */
export function cronOf(expression: string, timezone: string): Cron | undefined {
  if (expression.trim().split(/\s+/).length !== 5) return undefined;
  try {
    return new Cron(expression, { timezone, paused: true });
  } catch {
    return undefined;
  }
}

/**
 * The schedule slots in (fromMs, toMs], oldest first, at most `max` of them: a big jump of the
 * simulated clock produces a bounded catch-up instead of thousands of runs.
 */
export function dueSlots(cron: Cron, fromMs: number, toMs: number, max = 50): number[] {
  const out: number[] = [];
  let cursor = new Date(fromMs);
  while (out.length < max) {
    const next = cron.nextRun(cursor);
    if (!next || next.getTime() > toMs) break;
    out.push(next.getTime());
    cursor = next;
  }
  return out;
}
