import type { Request, Router } from "express";
import { body, str } from "../kit/body.js";
import {
  cronSchedule,
  DEPLOYMENT_FIELDS,
  deploymentRun,
  fireDueSlots,
  pauseRoutes,
  runRoute,
  seedRunSession,
} from "../kit/deployments.js";
import { h } from "../kit/errors.js";
import { checkMetadata, isObject } from "../kit/records.js";
import { getView } from "../kit/routes.js";
import { put, type Rec } from "../kit/store.js";
import {
  archiveRoute,
  bad,
  type Ctx,
  conflict,
  find,
  listByPage,
  liveIn,
  notArchived,
  stamp,
  updatedView,
  view,
} from "./common.js";
import { envVarMapOrString, sessionResources } from "./resources.js";
import { agentTurn, appendEvent, createManagedSession, vaultIds } from "./sessions.js";

const FIELDS = [...DEPLOYMENT_FIELDS, "environment_variables"];

function agentRef(ctx: Ctx, value: unknown): unknown {
  const id = typeof value === "string" ? value : isObject(value) ? value.id : undefined;
  if (typeof id !== "string") throw bad('agent must be an agent id or {id, type:"agent", version}');
  const agent = ctx.state.objects.agents.get(id);
  if (!agent || agent.archived_at) throw bad(`agent ${id} not found`);
  if (typeof value === "string") return id;
  const v = (value as Record<string, unknown>).version;
  if (v !== undefined && (typeof v !== "number" || v < 1 || v > (agent.version as number))) {
    throw bad(`agent version ${String(v)} does not exist`);
  }
  return { id, type: "agent", version: v ?? agent.version };
}

function initialEvents(value: unknown): unknown[] {
  if (!Array.isArray(value) || value.length === 0) throw bad("initial_events must be a non-empty array");
  return value.map((e, i) => {
    if (!isObject(e)) throw bad(`initial_events[${i}] must be an object`);
    if (e.type === "user.message" || e.type === "system.message") {
      const ok =
        Array.isArray(e.content) &&
        e.content.every((c) => isObject(c) && c.type === "text" && typeof c.text === "string");
      if (!ok || (e.content as unknown[]).length === 0)
        throw bad(`initial_events[${i}].content must be text blocks`);
      return e;
    }
    if (e.type === "user.define_outcome") {
      const rubric = e.rubric;
      const ok =
        isObject(rubric) &&
        ((rubric.type === "text" && typeof rubric.content === "string") ||
          (rubric.type === "file" && typeof rubric.file_id === "string"));
      if (!ok)
        throw bad(`initial_events[${i}].rubric must be {type:"text", content} or {type:"file", file_id}`);
      return e;
    }
    throw bad(`initial_events[${i}].type must be user.message, system.message or user.define_outcome`);
  });
}

/** Validates the fields present in a create (all) or update (present ones) body. */
function deploymentFields(ctx: Ctx, b: Record<string, unknown>, creating: boolean): Record<string, unknown> {
  const unknown = Object.keys(b).filter((k) => !FIELDS.includes(k));
  if (unknown.length) throw bad(`unknown field ${unknown[0]}`, "UNKNOWN_FIELD");
  const out: Record<string, unknown> = {};
  const has = (k: string) => creating || b[k] !== undefined;
  if (has("name")) out.name = str(b, "name", true);
  if (has("agent")) out.agent = agentRef(ctx, b.agent);
  if (has("environment_id")) {
    const env = ctx.state.objects.environments.get(str(b, "environment_id", true)!);
    if (!liveIn(env, "managed")) throw bad(`environment ${String(b.environment_id)} not found`);
    out.environment_id = env.id;
  }
  if (has("initial_events")) out.initial_events = initialEvents(b.initial_events);
  if (has("vault_ids")) out.vault_ids = vaultIds(ctx, b.vault_ids, "managed");
  if (has("resources")) out.resources = sessionResources(ctx, b.resources, "managed");
  if (b.schedule === null && !creating)
    throw bad("a schedule cannot be removed by update; archive and recreate");
  if (has("schedule"))
    out.schedule = b.schedule === undefined || b.schedule === null ? null : cronSchedule(b.schedule, "UTC");
  if (has("description")) out.description = str(b, "description") ?? "";
  if (has("environment_variables"))
    out.environment_variables = envVarMapOrString(b.environment_variables, "environment_variables");
  if (creating) out.metadata = checkMetadata(b.metadata);
  return out;
}

export function deploymentRoutes(r: Router, ctx: Ctx): void {
  const get = (req: Request) => find(ctx, "deployments", req.params.id as string, "deployment");

  r.post(
    "/deployments",
    h((req, res) => {
      const fields = deploymentFields(ctx, body(req), true);
      const rec = put(ctx.state, "deployments", {
        id: ctx.ids.next("depl_"),
        type: "deployment",
        ...fields,
        status: "active",
        paused_reason: null,
        ...stamp(ctx),
        archived_at: null,
      });
      res.json(view(rec));
    }),
  );
  r.get(
    "/deployments",
    h((req, res) => {
      const q = req.query;
      const range = isObject(q.created_at) ? q.created_at : {};
      const items = [...ctx.state.objects.deployments.values()].filter((d) => {
        const agentId = typeof d.agent === "string" ? d.agent : (d.agent as Rec).id;
        if (q.agent_id !== undefined && q.agent_id !== agentId) return false;
        if (q.status !== undefined && q.status !== d.status) return false;
        if (q.include_archived !== "true" && d.archived_at) return false;
        if (typeof range.gte === "string" && (d.created_at as string) < range.gte) return false;
        if (typeof range.lte === "string" && (d.created_at as string) > range.lte) return false;
        return true;
      });
      res.json(listByPage(ctx, req, items));
    }),
  );
  getView(r, "/deployments/:id", (req) => get(req));
  r.post(
    "/deployments/:id",
    h((req, res) => {
      const rec = get(req);
      notArchived(rec, "deployment");
      const b = body(req);
      Object.assign(rec, deploymentFields(ctx, b, false));
      res.json(updatedView(ctx, rec, b.metadata));
    }),
  );
  archiveRoute(r, ctx, "/deployments/:id/archive", "deployment", (req) => get(req));
  pauseRoutes(
    r,
    get,
    (rec) => notArchived(rec, "deployment"),
    () => ctx.clock.iso(),
  );
  runRoute(
    r,
    get,
    (rec) => notArchived(rec, "deployment"),
    (rec) => conflict(`deployment ${rec.id} is paused`, "DEPLOYMENT_PAUSED"),
    (rec) => runDeployment(ctx, rec, { type: "manual" }),
  );
}

/** One run: a managed session seeded with the initial events; a broken reference is the run's error. */
function runDeployment(ctx: Ctx, rec: Rec, trigger: Record<string, unknown>): Rec {
  const run = deploymentRun(
    rec,
    trigger,
    { id: ctx.ids.next("drun_"), status: "succeeded", ...stamp(ctx) },
    () => {
      const session = createManagedSession(ctx, {
        agent: rec.agent,
        environment_id: rec.environment_id,
        vault_ids: rec.vault_ids,
        resources: rec.resources,
        metadata: { deployment_id: rec.id },
      });
      seedRunSession(
        rec.initial_events as Rec[],
        (e) => appendEvent(ctx, session, e),
        (text) => agentTurn(ctx, session, text),
        (e) => e.type === "user.message",
      );
      return session.id;
    },
  );
  put(ctx.state, "deployment_runs", run);
  rec.last_run_at = run.created_at;
  return run;
}

/** Due cron slots become runs (kit/deployments.ts fireDueSlots says when). */
export function fireSchedules(ctx: Ctx): void {
  fireDueSlots(ctx.state.objects.deployments.values(), ctx.clock.now(), (d, slot) => {
    runDeployment(ctx, d, { type: "schedule", scheduled_at: new Date(slot).toISOString() });
  });
}
