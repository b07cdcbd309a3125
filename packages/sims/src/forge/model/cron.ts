/**
 * The five-field cron of pipeline schedules (minute hour day-of-month month day-of-week, with `*`,
 * `a-b`, `a,b` and `/step`), enough to answer `next_run_at` as GitLab does. The zone's offset is
 * taken once at the time asked from (a daylight-saving change inside the search is not followed).
 */

const FIELDS = [
  [0, 59],
  [0, 23],
  [1, 31],
  [1, 12],
  [0, 7],
] as const;

/** The values a field allows, or null when the field is not valid cron. */
function field(text: string, [lo, hi]: readonly [number, number]): Set<number> | null {
  const out = new Set<number>();
  for (const part of text.split(",")) {
    const m = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(part);
    if (!m) return null;
    const from = m[1] === "*" ? lo : Number(m[2]);
    const to = m[1] === "*" ? hi : m[3] !== undefined ? Number(m[3]) : m[4] !== undefined ? hi : from;
    const step = m[4] !== undefined ? Number(m[4]) : 1;
    if (from < lo || to > hi || from > to || step < 1) return null;
    for (let v = from; v <= to; v += step) out.add(v);
  }
  return out;
}

export interface Cron {
  minutes: Set<number>;
  hours: Set<number>;
  days: Set<number>;
  months: Set<number>;
  weekdays: Set<number>;
  /** Both day fields restricted: a day matches when either does (cron's rule). */
  eitherDay: boolean;
}

export function parseCron(text: string): Cron | null {
  const parts = text.trim().split(/\s+/);
  if (parts.length !== 5) return null;
  const sets = parts.map((p, i) => field(p, FIELDS[i]!));
  if (sets.some((s) => s === null)) return null;
  const [minutes, hours, days, months, weekdays] = sets as Set<number>[];
  // Sunday is 0 or 7
  if (weekdays!.has(7)) weekdays!.add(0);
  const eitherDay = !parts[2]!.startsWith("*") && !parts[4]!.startsWith("*");
  return { minutes: minutes!, hours: hours!, days: days!, months: months!, weekdays: weekdays!, eitherDay };
}

/** Whether the zone is one the simulator can compute in (an IANA name). */
export function validZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The zone's offset from UTC at `ms`, in minutes. */
function offsetMinutes(zone: string, ms: number): number {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone: zone,
    hourCycle: "h23",
    year: "numeric",
    month: "numeric",
    day: "numeric",
    hour: "numeric",
    minute: "numeric",
  }).formatToParts(new Date(ms));
  const n = (t: string) => Number(parts.find((p) => p.type === t)!.value);
  const local = Date.UTC(n("year"), n("month") - 1, n("day"), n("hour"), n("minute"));
  return Math.round((local - Math.floor(ms / 60_000) * 60_000) / 60_000);
}

/** The first minute after `fromMs` the cron names, in `zone`, as an ISO time (null past a year). */
export function nextRun(cron: Cron, zone: string, fromMs: number): string | null {
  const offset = offsetMinutes(zone, fromMs) * 60_000;
  // walk local wall-clock time a day, then an hour, then a minute at a time
  let t = Math.floor((fromMs + offset) / 60_000) * 60_000 + 60_000;
  const end = t + 366 * 86_400_000;
  while (t < end) {
    const d = new Date(t);
    const day = cron.days.has(d.getUTCDate());
    const weekday = cron.weekdays.has(d.getUTCDay());
    const dayOk = cron.months.has(d.getUTCMonth() + 1) && (cron.eitherDay ? day || weekday : day && weekday);
    if (!dayOk) {
      t = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
      continue;
    }
    if (!cron.hours.has(d.getUTCHours())) {
      t = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours() + 1);
      continue;
    }
    if (!cron.minutes.has(d.getUTCMinutes())) {
      t += 60_000;
      continue;
    }
    return new Date(t - offset).toISOString();
  }
  return null;
}
