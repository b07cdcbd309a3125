import type { Request, Router } from "express";
import { WireError } from "./errors.js";
import { isObject, publicView } from "./records.js";
import { answer } from "./routes.js";
import { cronOf, dueSlots } from "./schedule.js";
import type { Rec } from "./store.js";

// What provider_a's and provider_b's deployments do alike: a cron schedule in an IANA zone, runs
// fired lazily on the simulated clock, pause and unpause. Each provider keeps its own fields,
// references and run shape in its deployments.ts.

const bad = (message: string) => new WireError(400, "", message);

/** The deployment body fields the providers with deployments share; each adds its own. */
export const DEPLOYMENT_FIELDS: readonly string[] = [
  "name",
  "description",
  "agent",
  "environment_id",
  "initial_events",
  "vault_ids",
  "resources",
  "schedule",
  "metadata",
];

/** `{type:"cron", expression, timezone}`, the zone defaulting to the provider's own. */
export function cronSchedule(value: unknown, defaultZone: string): Record<string, unknown> {
  if (!isObject(value) || value.type !== "cron")
    throw bad('schedule must be {type:"cron", expression, timezone}');
  const tz = value.timezone ?? defaultZone;
  try {
    new Intl.DateTimeFormat("en", { timeZone: String(tz) });
  } catch {
    throw bad(`schedule.timezone ${String(tz)} is not an IANA time zone`);
  }
  if (typeof value.expression !== "string" || !cronOf(value.expression, String(tz))) {
    throw bad("schedule.expression must be a valid 5-field cron expression");
  }
  return { type: "cron", expression: value.expression, timezone: tz };
}

/**
 * Cron schedules fire on the simulated clock, lazily: before deployments or sessions are served,
 * every slot passed since the last look becomes a run (at most 50 per deployment per look).
 * Paused and archived deployments skip their slots.
 */
export function fireDueSlots(
  deployments: Iterable<Rec>,
  nowMs: number,
  run: (d: Rec, slotMs: number) => void,
): void {
  for (const d of deployments) {
    const sched = d.schedule as { expression: string; timezone: string } | null;
    if (!sched) continue;
    const from = (d._schedule_cursor_ms as number | undefined) ?? Date.parse(d.created_at as string);
    d._schedule_cursor_ms = nowMs;
    if (d.status !== "active" || d.archived_at) continue;
    const cron = cronOf(sched.expression, sched.timezone);
    if (!cron) continue;
    for (const slot of dueSlots(cron, from, nowMs)) run(d, slot);
  }
}

/** `POST /deployments/:id/pause` and `/unpause`: `guard` refuses what may not change, `now` stamps. */
export function pauseRoutes(
  r: Router,
  get: (req: Request) => Rec,
  guard: (rec: Rec) => void,
  now: () => string,
) {
  for (const [verb, status] of [
    ["pause", "paused"],
    ["unpause", "active"],
  ] as const) {
    r.post(
      `/deployments/:id/${verb}`,
      answer((req) => {
        const rec = get(req);
        guard(rec);
        Object.assign(rec, {
          status,
          paused_reason: status === "paused" ? "manual" : null,
          updated_at: now(),
        });
        return publicView(rec);
      }),
    );
  }
}

/** `POST /deployments/:id/run`: a manual run of a deployment that `guard` lets change and is not paused. */
export function runRoute(
  r: Router,
  get: (req: Request) => Rec,
  guard: (rec: Rec) => void,
  paused: (rec: Rec) => Error,
  run: (rec: Rec) => Rec,
): void {
  r.post(
    "/deployments/:id/run",
    answer((req) => {
      const rec = get(req);
      guard(rec);
      if (rec.status === "paused") throw paused(rec);
      return publicView(run(rec));
    }),
  );
}

/**
 * One run of deployment `rec`, its session started by `start` (which answers the session id). What
 * `start` throws (a broken reference) becomes the run's error instead of the request's.
 */
export function deploymentRun(
  rec: Rec,
  trigger: Record<string, unknown>,
  fields: { id: string; status: string; created_at: string; updated_at: string },
  start: () => string,
): Rec {
  const run: Rec = {
    id: fields.id,
    type: "deployment_run",
    deployment_id: rec.id,
    session_id: null,
    status: fields.status,
    error: null,
    trigger_context: trigger,
    created_at: fields.created_at,
    updated_at: fields.updated_at,
  };
  try {
    run.session_id = start();
  } catch (e) {
    Object.assign(run, { status: "failed", error: { message: (e as Error).message } });
  }
  return run;
}

/**
 * Seeds a run's session with the deployment's initial events; the agent then answers the text of
 * those `answered` picks, as it answers a session's messages (docs/sims.md §Session turns).
 */
export function seedRunSession(
  events: Rec[],
  append: (event: Rec) => void,
  agentAnswers: (text: string) => void,
  answered: (event: Rec) => boolean = () => true,
): void {
  for (const e of events) append({ ...e });
  const text = events
    .filter(answered)
    .map((e) => textOfContent(e.content))
    .join("\n");
  if (text) agentAnswers(text);
}

/** The text of a message's content blocks, joined. */
export function textOfContent(content: unknown): string {
  return Array.isArray(content)
    ? content
        .map((c) =>
          typeof c === "object" && c !== null && typeof (c as Rec).text === "string" ? (c as Rec).text : "",
        )
        .join("")
    : "";
}
