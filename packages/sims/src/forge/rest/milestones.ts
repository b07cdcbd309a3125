import type { Response } from "express";
import type { SimContext } from "../../core/sim.js";
import { loadProject, projectFullPath } from "../model/access.js";
import {
  anyMilestoneJson,
  editMilestone,
  milestoneJson,
  newMilestoneFields,
  setMilestone,
} from "../model/milestones.js";
import type { MilestoneRow } from "../model/state.js";
import { ACCESS, type ForgeState, type Issue, type Project } from "../model/state.js";
import { missing, notFound } from "../wire/answers.js";
import { paginate } from "../wire/paginate.js";
import { params, str } from "../wire/params.js";
import type { Routes } from "../wire/router.js";

/** A project's milestones (GitLab's milestones.rb), and the milestone an issue carries. */

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A create body's milestone title (a project's or a group's), or undefined once the 400 is
 * answered: the title is missing, or a date is not YYYY-MM-DD.
 */
export function newMilestoneTitle(b: Record<string, unknown>, res: Response): string | undefined {
  const title = str(b.title)?.trim();
  if (!title) {
    missing(res, "title");
    return undefined;
  }
  const bad = ["start_date", "due_date"].find((k) => b[k] !== undefined && !DATE.test(String(b[k])));
  if (bad) {
    res.status(400).json({ error: `${bad} is invalid` });
    return undefined;
  }
  return title;
}

export function milestoneRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  const fullPath = (p: Project) => projectFullPath(ctx.state, p);
  const d = () => ctx.state;

  const findMs = (p: Project, id: string) =>
    d().milestones.find((m) => m.project_id === p.id && String(m.id) === id);

  r.get("/projects/:id/milestones", (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const q = req.query as Record<string, unknown>;
    const search = str(q.search)?.toLowerCase();
    const rows = d()
      .milestones.filter((m) => m.project_id === p.id)
      .filter((m) => (q.state === "active" || q.state === "closed" ? m.state === q.state : true))
      .filter((m) => (typeof q.title === "string" ? m.title === q.title : true))
      .filter((m) => (search ? `${m.title} ${m.description}`.toLowerCase().includes(search) : true))
      .sort((a, b) => b.id - a.id);
    res.json(paginate(req, res, ctx.origin, rows).map((m) => milestoneJson(m, ctx.origin, fullPath(p))));
  });

  r.get("/projects/:id/milestones/:milestone_id", (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const m = findMs(p, String(req.params.milestone_id));
    if (!m) return notFound(res, "Milestone");
    res.json(milestoneJson(m, ctx.origin, fullPath(p)));
  });

  r.post("/projects/:id/milestones", (req, res) => {
    const p = loadProject(ctx.state, req, res, ACCESS.reporter);
    if (!p) return;
    const b = params(req);
    const title = newMilestoneTitle(b, res);
    if (!title) return;
    if (d().milestones.some((m) => m.project_id === p.id && m.title === title))
      return void res.status(400).json({
        message:
          "Failed to create milestone! Title already being used for another group or project milestone.",
      });
    const m: MilestoneRow = {
      id: ++d().seq.record,
      iid: d().milestones.filter((x) => x.project_id === p.id).length + 1,
      project_id: p.id,
      ...newMilestoneFields(title, b, ctx.state.clock.iso()),
    };
    d().milestones.push(m);
    res.status(201).json(milestoneJson(m, ctx.origin, fullPath(p)));
  });

  r.put("/projects/:id/milestones/:milestone_id", (req, res) => {
    const p = loadProject(ctx.state, req, res, ACCESS.reporter);
    if (!p) return;
    const m = findMs(p, String(req.params.milestone_id));
    if (!m) return notFound(res, "Milestone");
    editMilestone(m, params(req), ctx.state.clock.iso());
    res.json(milestoneJson(m, ctx.origin, fullPath(p)));
  });

  r.delete("/projects/:id/milestones/:milestone_id", (req, res) => {
    const p = loadProject(ctx.state, req, res, ACCESS.reporter);
    if (!p) return;
    const m = findMs(p, String(req.params.milestone_id));
    if (!m) return notFound(res, "Milestone");
    d().milestones = d().milestones.filter((x) => x !== m);
    res.status(204).end();
  });
}

export function issueMilestone(state: ForgeState, i: Issue, origin: string) {
  const id = state.issueMilestones[i.id];
  return id === undefined ? null : anyMilestoneJson(state, id, origin);
}

/** `milestone_id`: a milestone of the issue's project (or its groups), or 0/null to remove it. */
export function setIssueMilestone(state: ForgeState, i: Issue, raw: unknown): string | undefined {
  return setMilestone(state, "issueMilestones", i, raw);
}
