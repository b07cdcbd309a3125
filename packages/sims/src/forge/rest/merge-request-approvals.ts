import type { Request, Response } from "express";
import type { SimContext } from "../../core/sim.js";
import { caller } from "../model/access.js";
import { approvalsJson, approvalsLeft, loadMr } from "../model/merge-requests.js";
import { ACCESS, type ForgeState } from "../model/state.js";
import { userRef } from "../model/users.js";
import { notFound } from "../wire/answers.js";
import { params } from "../wire/params.js";
import type { Routes } from "../wire/router.js";

/**
 * A merge request's approvals (GitLab's merge_request_approvals.rb): the approvals, approving and
 * unapproving, and the approval state with its one "All Members" rule.
 */
export function mergeRequestApprovalRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  const load = (req: Request, res: Response, minLevel = 0) => loadMr(ctx.state, req, res, minLevel);

  r.get("/projects/:id/merge_requests/:iid/approval_state", (req, res) => {
    const l = load(req, res);
    if (!l) return;
    const approvedBy = l.mr.approved_by_ids.map((id) => userRef(ctx.state, id, ctx.origin));
    res.json({
      approval_rules_overwritten: false,
      rules: [
        {
          id: l.mr.id,
          name: "All Members",
          rule_type: "any_approver",
          eligible_approvers: [],
          approvals_required: l.mr.approvals_required,
          users: [],
          groups: [],
          contains_hidden_groups: false,
          approved_by: approvedBy,
          source_rule: null,
          approved: approvalsLeft(l.mr) === 0,
          overridden: false,
        },
      ],
    });
  });

  r.get("/projects/:id/merge_requests/:iid/approvals", (req, res) => {
    const l = load(req, res);
    if (l) res.json(approvalsJson(ctx.state, l.project, l.mr, ctx.origin, caller(res)?.user ?? null));
  });

  r.post("/projects/:id/merge_requests/:iid/approve", (req, res) => {
    const l = load(req, res, ACCESS.developer);
    if (!l) return;
    const me = caller(res)!.user;
    const p = params(req);
    if (typeof p.sha === "string" && p.sha !== l.mr.head_sha) {
      return void res
        .status(409)
        .json({ message: `SHA does not match HEAD of source branch: ${l.mr.head_sha}` });
    }
    // GitLab answers a second approval by the same user with 401.
    if (l.mr.approved_by_ids.includes(me.id) || l.mr.state !== "opened") {
      return void res.status(401).json({ message: "401 Unauthorized" });
    }
    l.mr.approved_by_ids.push(me.id);
    l.mr.updated_at = ctx.state.clock.iso();
    res.status(201).json(approvalsJson(ctx.state, l.project, l.mr, ctx.origin, me));
  });

  r.post("/projects/:id/merge_requests/:iid/unapprove", (req, res) => {
    const l = load(req, res, ACCESS.developer);
    if (!l) return;
    const me = caller(res)!.user;
    if (!l.mr.approved_by_ids.includes(me.id)) return notFound(res);
    l.mr.approved_by_ids = l.mr.approved_by_ids.filter((id) => id !== me.id);
    res.status(201).json(approvalsJson(ctx.state, l.project, l.mr, ctx.origin, me));
  });
}
