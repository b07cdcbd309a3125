import { invalid } from "../managed/errors.js";
import type { Kit, Obj } from "../managed/state.js";
import { allowOnly, checkString, type JsonObject, requireObject } from "../managed/validate.js";

const MONTHS = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"];
const DAYS = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"];
const FIELDS = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day of month", min: 1, max: 31 },
  { name: "month", min: 1, max: 12, names: MONTHS, base: 1 },
  { name: "day of week", min: 0, max: 7, names: DAYS, base: 0 },
] as const;
/** At most this many missed slots are started per deployment when the clock jumps ahead. */
const MAX_CATCH_UP_RUNS = 50;
const MINUTE = 60_000;
const MAX_SCAN_MINUTES = 31 * 24 * 60;

interface Cron {
  sets: Set<number>[];
  domRestricted: boolean;
  dowRestricted: boolean;
}

function value(raw: string, f: (typeof FIELDS)[number], expr: string): number {
  const named = "names" in f ? f.names.indexOf(raw.toUpperCase() as never) : -1;
  const n = named >= 0 && "base" in f ? named + f.base : /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(n) || n < f.min || n > f.max) {
    throw invalid(
      `schedule.expression: ${JSON.stringify(raw)} is not a valid ${f.name} in ${JSON.stringify(expr)}`,
    );
  }
  return n;
}

/** A 5-field POSIX cron expression; seconds, years, L, W, #, ? and @-macros are refused. */
function parseCron(expr: string): Cron {
  if (
    /[LW#?@]/i.test(
      expr.replace(/[A-Z]{3}/gi, (m) =>
        MONTHS.includes(m.toUpperCase()) || DAYS.includes(m.toUpperCase()) ? "" : m,
      ),
    )
  ) {
    throw invalid(
      `schedule.expression: ${JSON.stringify(expr)} uses L, W, #, ? or @, which are not supported`,
    );
  }
  const parts = expr.trim().split(/\s+/);
  if (parts.length !== 5)
    throw invalid(`schedule.expression: expected 5 fields, got ${parts.length} in ${JSON.stringify(expr)}`);
  const sets = parts.map((part, i) => {
    const f = FIELDS[i] as (typeof FIELDS)[number];
    const set = new Set<number>();
    for (const item of part.split(",")) {
      const m = /^(\*|[A-Za-z0-9]+(?:-[A-Za-z0-9]+)?)(?:\/(\d+))?$/.exec(item);
      if (!m?.[1]) throw invalid(`schedule.expression: bad ${f.name} field ${JSON.stringify(part)}`);
      const step = m[2] === undefined ? 1 : Number(m[2]);
      if (step < 1) throw invalid(`schedule.expression: step must be at least 1 in ${JSON.stringify(part)}`);
      let lo: number = f.min;
      let hi: number = f.max;
      if (m[1] !== "*") {
        const [a, b] = m[1].split("-");
        lo = value(a as string, f, expr);
        hi = b === undefined ? (m[2] === undefined ? lo : f.max) : value(b, f, expr);
        if (hi < lo) throw invalid(`schedule.expression: range ${m[1]} runs backwards`);
      }
      for (let v = lo; v <= hi; v += step) set.add(i === 4 && v === 7 ? 0 : v);
    }
    return set;
  });
  return { sets, domRestricted: parts[2] !== "*", dowRestricted: parts[4] !== "*" };
}

export function parseSchedule(v: unknown): JsonObject | null {
  if (v === undefined || v === null) return null;
  const s = requireObject(v, "schedule");
  allowOnly(s, ["type", "expression", "timezone"], "schedule");
  if (s.type !== "cron") throw invalid(`schedule.type: must be "cron"`);
  const expression = checkString(s.expression, "schedule.expression", { min: 1 });
  parseCron(expression);
  const timezone = checkString(s.timezone, "schedule.timezone", { min: 1 });
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: timezone });
  } catch {
    throw invalid(`schedule.timezone: ${JSON.stringify(timezone)} is not an IANA time zone`);
  }
  return { type: "cron", expression, timezone };
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function localParts(ms: number, tz: string): number[] {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: tz,
      hourCycle: "h23",
      minute: "numeric",
      hour: "numeric",
      day: "numeric",
      month: "numeric",
      weekday: "short",
    });
    formatters.set(tz, f);
  }
  const p: Record<string, string> = {};
  for (const part of f.formatToParts(ms)) p[part.type] = part.value;
  return [
    Number(p.minute),
    Number(p.hour),
    Number(p.day),
    Number(p.month),
    DAYS.indexOf((p.weekday ?? "").toUpperCase()),
  ];
}

function matches(cron: Cron, parts: number[]): boolean {
  const [min, hour, dom, month, dow] = parts as [number, number, number, number, number];
  const [sMin, sHour, sDom, sMonth, sDow] = cron.sets as [
    Set<number>,
    Set<number>,
    Set<number>,
    Set<number>,
    Set<number>,
  ];
  if (!sMin.has(min) || !sHour.has(hour) || !sMonth.has(month)) return false;
  // POSIX: when both day fields are restricted, either may match.
  if (cron.domRestricted && cron.dowRestricted) return sDom.has(dom) || sDow.has(dow);
  return sDom.has(dom) && sDow.has(dow);
}

/**
 * Starts the runs whose cron slots passed since the last look, on the simulated clock, so a test can
 * advance `/_sim/clock` and observe scheduled runs. Paused and archived deployments never fire.
 */
export function catchUpSchedules(kit: Kit, startRun: (kit: Kit, d: Obj, trigger: JsonObject) => Obj): void {
  const s = kit.state();
  const now = kit.clock.now();
  for (const d of s.deployments.values()) {
    const mark = s.scheduleMarks.get(d.id);
    s.scheduleMarks.set(d.id, now);
    if (mark === undefined || !d.schedule || d.status !== "active" || d.archived_at) continue;
    const cron = parseCron(d.schedule.expression);
    const due: number[] = [];
    let t = Math.floor(mark / MINUTE) * MINUTE + MINUTE;
    const stop = Math.min(now, t + MAX_SCAN_MINUTES * MINUTE);
    for (; t <= stop; t += MINUTE) if (matches(cron, localParts(t, d.schedule.timezone))) due.push(t);
    for (const at of due.slice(-MAX_CATCH_UP_RUNS)) {
      startRun(kit, d, { type: "schedule", scheduled_at: new Date(at).toISOString() });
    }
  }
}
