import type { Request, Response } from "express";
import type { SimContext } from "../../core/sim.js";
import {
  caller,
  groupAccessLevel,
  groupById,
  groupChain,
  groupFullPath,
  loadGroup,
  loadProject,
} from "../model/access.js";
import { mrJson } from "../model/merge-requests.js";
import { editMilestone, groupMilestoneJson, newMilestoneFields } from "../model/milestones.js";
import type { GroupMilestoneRow } from "../model/state.js";
import { ACCESS, type ForgeState, type Group, type Issue, type MergeRequest } from "../model/state.js";
import { forbidden, notFound } from "../wire/answers.js";
import { paginate } from "../wire/paginate.js";
import { boolParam, idsParam, params, str } from "../wire/params.js";
import { type Routes, twins } from "../wire/router.js";
import { canSeeIssue, issueJson } from "./issues.js";
import { newMilestoneTitle } from "./milestones.js";

/**
 * Group milestones (`/groups/:id/milestones`), the issues, merge requests and burndown events of a
 * project or group milestone, and promoting a project milestone to its group.
 */

export function groupMilestoneRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  const s = () => ctx.state;
  const groupMs = () => (s().groupMilestones ??= []);
  const gjson = (m: GroupMilestoneRow) => {
    const g = groupById(s(), m.group_id)!;
    return groupMilestoneJson(m, ctx.origin, groupFullPath(s(), g));
  };
  const loadGroupAt = (req: Request, res: Response, level: number): Group | null => {
    const g = loadGroup(s(), req, res);
    if (!g) return null;
    if (level > 0 && groupAccessLevel(s(), caller(res)?.user ?? null, g) < level) {
      forbidden(res);
      return null;
    }
    return g;
  };
  const findGroupMs = (g: Group, id: string) =>
    groupMs().find((m) => m.group_id === g.id && String(m.id) === id);

  /** The projects inside a group and its subgroups. */
  const groupProjects = (g: Group) =>
    s().projects.filter(
      (p) => p.namespace.kind === "group" && groupChain(s(), groupById(s(), p.namespace.id)!).includes(g),
    );

  r.get("/groups/:id/milestones", (req, res) => {
    const g = loadGroupAt(req, res, 0);
    if (!g) return;
    const q = req.query as Record<string, unknown>;
    const search = str(q.search)?.toLowerCase();
    const iids = idsParam(q.iids ?? q["iids[]"]);
    const groups = boolParam(q.include_ancestors) ? groupChain(s(), g).map((x) => x.id) : [g.id];
    const rows = groupMs()
      .filter((m) => groups.includes(m.group_id))
      .filter((m) => (q.state === "active" || q.state === "closed" ? m.state === q.state : true))
      .filter((m) => (typeof q.title === "string" ? m.title === q.title : true))
      .filter((m) => (iids ? iids.includes(m.iid) : true))
      .filter((m) => (search ? `${m.title} ${m.description}`.toLowerCase().includes(search) : true))
      .sort((a, b) => b.id - a.id);
    res.json(paginate(req, res, ctx.origin, rows).map(gjson));
  });

  r.get("/groups/:id/milestones/:milestone_id", (req, res) => {
    const g = loadGroupAt(req, res, 0);
    if (!g) return;
    const m = findGroupMs(g, String(req.params.milestone_id));
    if (!m) return notFound(res, "Milestone");
    res.json(gjson(m));
  });

  r.post("/groups/:id/milestones", (req, res) => {
    const g = loadGroupAt(req, res, ACCESS.reporter);
    if (!g) return;
    const b = params(req);
    const title = newMilestoneTitle(b, res);
    if (!title) return;
    if (groupMs().some((m) => m.group_id === g.id && m.title === title))
      return void res.status(400).json({ message: "Title has already been taken" });
    const m: GroupMilestoneRow = {
      id: ++s().seq.record,
      iid: groupMs().filter((x) => x.group_id === g.id).length + 1,
      group_id: g.id,
      ...newMilestoneFields(title, b, s().clock.iso()),
    };
    groupMs().push(m);
    res.status(201).json(gjson(m));
  });

  r.put("/groups/:id/milestones/:milestone_id", (req, res) => {
    const g = loadGroupAt(req, res, ACCESS.reporter);
    if (!g) return;
    const m = findGroupMs(g, String(req.params.milestone_id));
    if (!m) return notFound(res, "Milestone");
    editMilestone(m, params(req), s().clock.iso());
    res.json(gjson(m));
  });

  r.delete("/groups/:id/milestones/:milestone_id", (req, res) => {
    const g = loadGroupAt(req, res, ACCESS.reporter);
    if (!g) return;
    const m = findGroupMs(g, String(req.params.milestone_id));
    if (!m) return notFound(res, "Milestone");
    s().groupMilestones = groupMs().filter((x) => x !== m);
    unassign(m.id);
    res.status(204).end();
  });

  /** Removing a milestone takes it off every issue and merge request that had it. */
  const unassign = (id: number) => {
    const x = s();
    for (const [k, v] of Object.entries(x.issueMilestones)) if (v === id) delete x.issueMilestones[Number(k)];
    for (const [k, v] of Object.entries(x.mrMilestones ?? {}))
      if (v === id) delete x.mrMilestones![Number(k)];
  };

  // The issues, merge requests and burndown events of one milestone, project or group.
  const issuesOf = (id: number, res: Response): Issue[] =>
    s().issues.filter(
      (i) => s().issueMilestones[i.id] === id && canSeeIssue(s(), i, caller(res)?.user ?? null),
    );
  const mrsOf = (id: number): MergeRequest[] =>
    s().mergeRequests.filter((m) => s().mrMilestones?.[m.id] === id);
  /** One event per issue opened, closed (and reopened: GitLab keeps no more than that in the sim). */
  const burndown = (issues: Issue[]) =>
    issues
      .flatMap((i) => [
        { created_at: i.created_at, weight: null, action: "created" },
        ...(i.closed_at ? [{ created_at: i.closed_at, weight: null, action: "closed" }] : []),
      ])
      .sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));

  const answers = {
    issues: (id: number, req: Request, res: Response) =>
      paginate(req, res, ctx.origin, issuesOf(id, res)).map((i) => issueJson(s(), i, ctx.origin)),
    merge_requests: (id: number, req: Request, res: Response) =>
      paginate(req, res, ctx.origin, mrsOf(id)).map((m) => {
        const p = s().projects.find((x) => x.id === m.project_id)!;
        return mrJson(s(), p, m, ctx.origin);
      }),
    burndown_events: (id: number, req: Request, res: Response) =>
      paginate(req, res, ctx.origin, burndown(issuesOf(id, res))),
  };

  /** A project milestone (its items are its project's) or a group milestone (items inside the group). */
  type Scope = { id: number; inGroup: Set<number> | null };
  const milestone = twins<Scope>(r, [
    (req, res) => {
      const p = loadProject(s(), req, res);
      if (!p) return null;
      const m = s().milestones.find((x) => x.project_id === p.id && String(x.id) === req.params.milestone_id);
      if (!m) {
        notFound(res, "Milestone");
        return null;
      }
      return { id: m.id, inGroup: null };
    },
    (req, res) => {
      const g = loadGroupAt(req, res, 0);
      if (!g) return null;
      const m = findGroupMs(g, String(req.params.milestone_id));
      if (!m) {
        notFound(res, "Milestone");
        return null;
      }
      return { id: m.id, inGroup: new Set(groupProjects(g).map((p) => p.id)) };
    },
  ]);
  const inScope = <T extends { project_id?: number }>(scope: Scope, rows: T[]) =>
    scope.inGroup ? rows.filter((x) => scope.inGroup!.has(x.project_id!)) : rows;
  milestone.get(
    ["/projects/:id/milestones/:milestone_id/issues", "/groups/:id/milestones/:milestone_id/issues"],
    (scope, req, res) => res.json(inScope(scope, answers.issues(scope.id, req, res))),
  );
  milestone.get(
    [
      "/projects/:id/milestones/:milestone_id/merge_requests",
      "/groups/:id/milestones/:milestone_id/merge_requests",
    ],
    (scope, req, res) => res.json(inScope(scope, answers.merge_requests(scope.id, req, res))),
  );
  milestone.get(
    [
      "/projects/:id/milestones/:milestone_id/burndown_events",
      "/groups/:id/milestones/:milestone_id/burndown_events",
    ],
    (scope, req, res) => res.json(answers.burndown_events(scope.id, req, res)),
  );

  // Promotion: the project milestone becomes a milestone of the project's group (same title, dates
  // and description); the issues and merge requests that had it keep it, now as the group's.
  r.post("/projects/:id/milestones/:milestone_id/promote", (req, res) => {
    const p = loadProject(s(), req, res, ACCESS.reporter);
    if (!p) return;
    const m = s().milestones.find((x) => x.project_id === p.id && String(x.id) === req.params.milestone_id);
    if (!m) return notFound(res, "Milestone");
    if (p.namespace.kind !== "group")
      return void res.status(400).json({ message: "Project does not belong to a group." });
    const g = groupById(s(), p.namespace.id)!;
    if (groupAccessLevel(s(), caller(res)?.user ?? null, g) < ACCESS.reporter) return forbidden(res);
    if (groupMs().some((x) => x.group_id === g.id && x.title === m.title))
      return void res.status(400).json({ message: "Title has already been taken" });
    const now = s().clock.iso();
    const promoted: GroupMilestoneRow = {
      ...m,
      id: ++s().seq.record,
      iid: groupMs().filter((x) => x.group_id === g.id).length + 1,
      group_id: g.id,
      updated_at: now,
    };
    delete (promoted as { project_id?: number }).project_id;
    groupMs().push(promoted);
    s().milestones = s().milestones.filter((x) => x !== m);
    const x = s();
    for (const [k, v] of Object.entries(x.issueMilestones))
      if (v === m.id) x.issueMilestones[Number(k)] = promoted.id;
    for (const [k, v] of Object.entries(x.mrMilestones ?? {}))
      if (v === m.id) x.mrMilestones![Number(k)] = promoted.id;
    res.json(gjson(promoted));
  });
}
