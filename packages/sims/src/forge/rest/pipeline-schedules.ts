import type { Request, Response } from "express";
import type { SimContext } from "../../core/sim.js";
import { loadProject, projectAccessLevel, projectRecord, requireUser } from "../model/access.js";
import { createPipeline, isFinal, pipelineJson, syncPipeline } from "../model/ci.js";
import { nextRun, parseCron, validZone } from "../model/cron.js";
import { resolveRef } from "../model/repo.js";
import type { ForgeUser, PipelineScheduleRow, Project } from "../model/state.js";
import { ACCESS, type ForgeState } from "../model/state.js";
import { userRef } from "../model/users.js";
import { forbidden, missing, notFound } from "../wire/answers.js";
import { paginate } from "../wire/paginate.js";
import { boolParam, params, str } from "../wire/params.js";
import type { Routes } from "../wire/router.js";

/**
 * A project's pipeline schedules (GitLab's ci/pipeline_schedules.rb): list, one (with its last
 * pipeline and, for its owner and maintainers, its variables), create, edit (its owner only),
 * delete, run now, take ownership, the pipelines it ran, and its variables by key.
 */

const S = "/projects/:id/pipeline_schedules/:pipeline_schedule_id";
const KEY = /^[a-zA-Z0-9_]{1,255}$/;
const VARIABLE_TYPES = ["env_var", "file"];

const invalid = (res: Response, field: string, text: string) =>
  void res.status(400).json({ message: { [field]: [text] } });

export function pipelineScheduleRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  const s = () => ctx.state;
  const rows = () => s().pipelineSchedules;

  const owns = (me: ForgeUser | null, p: Project, x: PipelineScheduleRow) =>
    !!me && (x.owner_id === me.id || projectAccessLevel(s(), me, p) >= ACCESS.maintainer);

  const json = (p: Project, x: PipelineScheduleRow, me: ForgeUser | null, detail: boolean) => {
    const cron = parseCron(x.cron);
    const base = {
      id: x.id,
      description: x.description,
      ref: x.ref,
      cron: x.cron,
      cron_timezone: x.cron_timezone,
      next_run_at: cron ? nextRun(cron, x.cron_timezone, s().clock.now()) : null,
      active: x.active,
      created_at: x.created_at,
      updated_at: x.updated_at,
      owner: userRef(s(), x.owner_id, ctx.origin),
    };
    if (!detail) return base;
    const last = s().pipelines.find((pl) => pl.id === x.pipeline_ids.at(-1));
    if (last) syncPipeline(s(), last);
    return {
      ...base,
      last_pipeline: last ? pipelineJson(s(), last, ctx.origin) : null,
      // the variables' values only to those who may change them
      ...(owns(me, p, x) ? { variables: x.variables.map((v) => ({ ...v, raw: false })) } : {}),
    };
  };

  /** The project at `level` and the schedule `:pipeline_schedule_id` names (404 otherwise). */
  const load = (req: Request, res: Response, level: number) => {
    const me = requireUser(res);
    if (!me) return null;
    const p = loadProject(s(), req, res, level);
    if (!p) return null;
    const x = projectRecord(rows(), p, req, res, "pipeline_schedule_id", "Pipeline Schedule");
    return x && { me, p, x };
  };

  /** Whether cron and cron_timezone are valid; answers GitLab's 400 when not. */
  const checkCron = (res: Response, cron: string, zone: string) => {
    const bad = !parseCron(cron) ? "cron" : !validZone(zone) ? "cron_timezone" : undefined;
    if (bad) invalid(res, bad, "is invalid syntax");
    return bad === undefined;
  };

  r.get("/projects/:id/pipeline_schedules", (req, res) => {
    const me = requireUser(res);
    if (!me) return;
    const p = loadProject(s(), req, res, ACCESS.reporter);
    if (!p) return;
    const scope = str(req.query.scope);
    if (scope !== undefined && scope !== "active" && scope !== "inactive")
      return void res.status(400).json({ error: "scope does not have a valid value" });
    const list = rows()
      .filter((x) => x.project_id === p.id)
      .filter((x) => (scope === undefined ? true : x.active === (scope === "active")));
    res.json(paginate(req, res, ctx.origin, list).map((x) => json(p, x, me, false)));
  });

  r.get(S, (req, res) => {
    const l = load(req, res, ACCESS.reporter);
    if (l) res.json(json(l.p, l.x, l.me, true));
  });

  r.get(`${S}/pipelines`, (req, res) => {
    const l = load(req, res, ACCESS.reporter);
    if (!l) return;
    const q = req.query as Record<string, unknown>;
    const scopes: Record<string, (st: string) => boolean> = {
      running: (st) => st === "running",
      pending: (st) => st === "pending",
      finished: (st) => isFinal(st as never),
      branches: () => true,
      tags: () => false,
    };
    const scope = str(q.scope);
    if (scope !== undefined && !scopes[scope])
      return void res.status(400).json({ error: "scope does not have a valid value" });
    const pipelines = l.x.pipeline_ids
      .map((id) => s().pipelines.find((pl) => pl.id === id))
      .filter((pl) => pl !== undefined);
    for (const pl of pipelines) syncPipeline(s(), pl);
    const after = (v: unknown, t: string) => typeof v !== "string" || t > v;
    const before = (v: unknown, t: string) => typeof v !== "string" || t < v;
    const list = pipelines
      .filter((pl) => (scope ? scopes[scope]!(pl.status) : true))
      .filter((pl) => (typeof q.status === "string" ? pl.status === q.status : true))
      .filter((pl) => after(q.updated_after, pl.updated_at) && before(q.updated_before, pl.updated_at))
      .filter((pl) => after(q.created_after, pl.created_at) && before(q.created_before, pl.created_at))
      .sort((a, b) => (a.id - b.id) * (q.sort === "desc" ? -1 : 1));
    res.json(paginate(req, res, ctx.origin, list).map((pl) => pipelineJson(s(), pl, ctx.origin)));
  });

  r.post("/projects/:id/pipeline_schedules", (req, res) => {
    const me = requireUser(res);
    if (!me) return;
    const p = loadProject(s(), req, res, ACCESS.developer);
    if (!p) return;
    const b = params(req);
    const absent = ["description", "ref", "cron"].filter((k) => str(b[k]) === undefined);
    if (absent.length) return missing(res, ...absent);
    const cron = str(b.cron)!;
    const zone = str(b.cron_timezone) ?? "UTC";
    if (!checkCron(res, cron, zone)) return;
    const now = s().clock.iso();
    const x: PipelineScheduleRow = {
      id: ++s().seq.record2,
      project_id: p.id,
      description: str(b.description)!,
      ref: str(b.ref)!,
      cron,
      cron_timezone: zone,
      active: boolParam(b.active) ?? true,
      owner_id: me.id,
      created_at: now,
      updated_at: now,
      variables: [],
      pipeline_ids: [],
    };
    rows().push(x);
    res.status(201).json(json(p, x, me, true));
  });

  r.put(S, (req, res) => {
    const l = load(req, res, ACCESS.developer);
    if (!l) return;
    // GitLab lets only the schedule's owner change it (a maintainer takes ownership first)
    if (l.x.owner_id !== l.me.id) return forbidden(res);
    const b = params(req);
    const cron = str(b.cron) ?? l.x.cron;
    const zone = str(b.cron_timezone) ?? l.x.cron_timezone;
    if (!checkCron(res, cron, zone)) return;
    Object.assign(l.x, {
      description: str(b.description) ?? l.x.description,
      ref: str(b.ref) ?? l.x.ref,
      cron,
      cron_timezone: zone,
      active: boolParam(b.active) ?? l.x.active,
      updated_at: s().clock.iso(),
    });
    res.json(json(l.p, l.x, l.me, true));
  });

  r.delete(S, (req, res) => {
    const l = load(req, res, ACCESS.developer);
    if (!l) return;
    if (!owns(l.me, l.p, l.x)) return forbidden(res);
    s().pipelineSchedules = rows().filter((y) => y !== l.x);
    res.status(204).end();
  });

  // Runs the schedule now, as its owner would be run by the scheduler; the next run stays as it was.
  r.post(`${S}/play`, (req, res) => {
    const l = load(req, res, ACCESS.developer);
    if (!l) return;
    const ref = l.x.ref.replace(/^refs\/(heads|tags)\//, "");
    const commit = resolveRef(l.p.repository, ref);
    if (commit) {
      const variables = l.x.variables.map(({ key, value }) => ({ key, value }));
      const pl = createPipeline(s(), l.p, ref, commit.id, l.x.owner_id, "schedule", variables);
      l.x.pipeline_ids.push(pl.id);
    }
    res.status(201).json({ message: "201 Created" });
  });

  r.post(`${S}/take_ownership`, (req, res) => {
    const l = load(req, res, ACCESS.maintainer);
    if (!l) return;
    l.x.owner_id = l.me.id;
    l.x.updated_at = s().clock.iso();
    res.status(201).json(json(l.p, l.x, l.me, true));
  });

  // variables, by key
  const variable = (req: Request, res: Response, x: PipelineScheduleRow) => {
    const v = x.variables.find((y) => y.key === req.params.key);
    if (!v) notFound(res, "Pipeline Schedule Variable");
    return v;
  };
  const variableJson = (v: PipelineScheduleRow["variables"][number]) => ({ ...v, raw: false });

  r.get(`${S}/variables/:key`, (req, res) => {
    const l = load(req, res, ACCESS.developer);
    if (!l) return;
    if (!owns(l.me, l.p, l.x)) return forbidden(res);
    const v = variable(req, res, l.x);
    if (v) res.json(variableJson(v));
  });

  r.post(`${S}/variables`, (req, res) => {
    const l = load(req, res, ACCESS.developer);
    if (!l) return;
    if (l.x.owner_id !== l.me.id) return forbidden(res);
    const b = params(req);
    const absent = ["key", "value"].filter((k) => str(b[k]) === undefined);
    if (absent.length) return missing(res, ...absent);
    const key = str(b.key)!;
    const type = str(b.variable_type) ?? "env_var";
    if (!VARIABLE_TYPES.includes(type))
      return void res.status(400).json({ error: "variable_type does not have a valid value" });
    if (!KEY.test(key)) return invalid(res, "key", "can contain only letters, digits and '_'.");
    if (l.x.variables.some((v) => v.key === key))
      return invalid(res, "key", `(${key}) has already been taken`);
    const v = { key, value: str(b.value)!, variable_type: type as "env_var" | "file" };
    l.x.variables.push(v);
    res.status(201).json(variableJson(v));
  });

  r.put(`${S}/variables/:key`, (req, res) => {
    const l = load(req, res, ACCESS.developer);
    if (!l) return;
    if (l.x.owner_id !== l.me.id) return forbidden(res);
    const v = variable(req, res, l.x);
    if (!v) return;
    const b = params(req);
    const type = str(b.variable_type) ?? v.variable_type;
    if (!VARIABLE_TYPES.includes(type))
      return void res.status(400).json({ error: "variable_type does not have a valid value" });
    Object.assign(v, { value: str(b.value) ?? v.value, variable_type: type });
    res.json(variableJson(v));
  });

  // GitLab answers the deletion 202 Accepted, with the variable as it was
  r.delete(`${S}/variables/:key`, (req, res) => {
    const l = load(req, res, ACCESS.developer);
    if (!l) return;
    if (l.x.owner_id !== l.me.id) return forbidden(res);
    const v = variable(req, res, l.x);
    if (!v) return;
    l.x.variables = l.x.variables.filter((y) => y !== v);
    res.status(202).json(variableJson(v));
  });
}
