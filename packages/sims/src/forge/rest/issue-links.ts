import type { Request, Response } from "express";
import type { SimContext } from "../../core/sim.js";
import { caller, canReadProject, findProject, loadProject } from "../model/access.js";
import { ACCESS, type ForgeState } from "../model/state.js";
import { missing, notFound } from "../wire/answers.js";
import { params, str } from "../wire/params.js";
import type { Routes } from "../wire/router.js";
import { findIssue, issueJson } from "./issues.js";

/** Issue links (GitLab's issue_links.rb): relate_to, blocks and is_blocked_by between issues. */

export function issueLinkRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  const s = () => ctx.state;
  const loadIssue = (req: Request, res: Response, min = 0) => {
    const p = loadProject(s(), req, res, min);
    if (!p) return null;
    const issue = findIssue(s(), p, Number(req.params.iid), caller(res)?.user ?? null);
    if (!issue) {
      notFound(res);
      return null;
    }
    return issue;
  };

  r.get("/projects/:id/issues/:iid/links", (req, res) => {
    const issue = loadIssue(req, res);
    if (!issue) return;
    const me = caller(res)?.user ?? null;
    const rows = s()
      .links.filter((l) => l.source_issue_id === issue.id || l.target_issue_id === issue.id)
      .flatMap((l) => {
        const otherId = l.source_issue_id === issue.id ? l.target_issue_id : l.source_issue_id;
        const other = s().issues.find((i) => i.id === otherId);
        const op = other && s().projects.find((p) => p.id === other.project_id);
        if (!other || !op || !canReadProject(s(), me, op) || !findIssue(s(), op, other.iid, me)) return [];
        const type =
          l.source_issue_id === issue.id
            ? l.link_type
            : l.link_type === "blocks"
              ? "is_blocked_by"
              : l.link_type === "is_blocked_by"
                ? "blocks"
                : l.link_type;
        return [
          {
            ...issueJson(s(), other, ctx.origin),
            issue_link_id: l.id,
            link_type: type,
            link_created_at: l.created_at,
            link_updated_at: l.created_at,
          },
        ];
      });
    res.json(rows);
  });

  r.post("/projects/:id/issues/:iid/links", (req, res) => {
    const issue = loadIssue(req, res, ACCESS.guest);
    if (!issue) return;
    const b = params(req);
    const tp = str(b.target_project_id);
    const tiid = Number(b.target_issue_iid);
    if (!tp || !Number.isInteger(tiid))
      return missing(
        res,
        ...(!tp ? ["target_project_id"] : []),
        ...(!Number.isInteger(tiid) ? ["target_issue_iid"] : []),
      );
    const me = caller(res)!.user;
    const project = findProject(s(), tp);
    const target =
      project && canReadProject(s(), me, project) ? findIssue(s(), project, tiid, me) : undefined;
    if (!target) return notFound(res, "Issue");
    const type = b.link_type === undefined ? "relates_to" : String(b.link_type);
    if (!["relates_to", "blocks", "is_blocked_by"].includes(type))
      return void res.status(400).json({ error: "link_type does not have a valid value" });
    if (target.id === issue.id)
      return void res.status(400).json({ message: "Cannot link an issue to itself" });
    if (
      s().links.some(
        (l) =>
          (l.source_issue_id === issue.id && l.target_issue_id === target.id) ||
          (l.source_issue_id === target.id && l.target_issue_id === issue.id),
      )
    )
      return void res.status(409).json({ message: "Issue(s) already assigned" });
    const link = {
      id: ++s().seq.record,
      source_issue_id: issue.id,
      target_issue_id: target.id,
      link_type: type as "relates_to",
      created_at: s().clock.iso(),
    };
    s().links.push(link);
    res.status(201).json({
      source_issue: issueJson(s(), issue, ctx.origin),
      target_issue: issueJson(s(), target, ctx.origin),
      link_type: type,
    });
  });

  // One link by its id: both issues (each must be visible to the caller) and the link's type.
  r.get("/projects/:id/issues/:iid/links/:link_id", (req, res) => {
    const issue = loadIssue(req, res);
    if (!issue) return;
    const me = caller(res)?.user ?? null;
    const link = s().links.find(
      (x) =>
        x.id === Number(req.params.link_id) &&
        (x.source_issue_id === issue.id || x.target_issue_id === issue.id),
    );
    const readable = (id: number | undefined) => {
      const i = s().issues.find((x) => x.id === id);
      const p = i && s().projects.find((x) => x.id === i.project_id);
      return p && canReadProject(s(), me, p) ? findIssue(s(), p, i!.iid, me) : undefined;
    };
    const src = readable(link?.source_issue_id);
    const dst = readable(link?.target_issue_id);
    if (!link || !src || !dst) return notFound(res);
    res.json({
      source_issue: issueJson(s(), src, ctx.origin),
      target_issue: issueJson(s(), dst, ctx.origin),
      link_type: link.link_type,
      link_created_at: link.created_at,
      link_updated_at: link.created_at,
    });
  });

  r.delete("/projects/:id/issues/:iid/links/:link_id", (req, res) => {
    const issue = loadIssue(req, res, ACCESS.guest);
    if (!issue) return;
    const link = s().links.find(
      (l) =>
        l.id === Number(req.params.link_id) &&
        (l.source_issue_id === issue.id || l.target_issue_id === issue.id),
    );
    if (!link) return notFound(res, "Not found");
    s().links = s().links.filter((l) => l !== link);
    const src = s().issues.find((i) => i.id === link.source_issue_id)!;
    const dst = s().issues.find((i) => i.id === link.target_issue_id)!;
    res.json({
      source_issue: issueJson(s(), src, ctx.origin),
      target_issue: issueJson(s(), dst, ctx.origin),
      link_type: link.link_type,
    });
  });
}
