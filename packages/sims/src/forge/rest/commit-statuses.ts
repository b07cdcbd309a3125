import type { SimContext } from "../../core/sim.js";
import { caller, loadProject } from "../model/access.js";
import { resolveRef } from "../model/repo.js";
import type { CommitStatusRow } from "../model/state.js";
import { ACCESS, type ForgeState } from "../model/state.js";
import { userRef } from "../model/users.js";
import { missing, notFound } from "../wire/answers.js";
import { paginate } from "../wire/paginate.js";
import { params, str } from "../wire/params.js";
import type { Routes } from "../wire/router.js";

/** External commit statuses (GitLab's commit_statuses.rb): posting one on a commit, listing a commit's. */

const STATES = new Set(["pending", "running", "success", "failed", "canceled", "skipped"]);

export function commitStatusRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  // Commit statuses set by external systems.
  const statusJson = (s: CommitStatusRow) => ({
    id: s.id,
    sha: s.sha,
    ref: s.ref,
    status: s.status,
    name: s.name,
    target_url: s.target_url,
    description: s.description,
    created_at: s.created_at,
    started_at: s.status === "pending" ? null : s.created_at,
    finished_at: ["success", "failed", "canceled", "skipped"].includes(s.status) ? s.created_at : null,
    allow_failure: false,
    coverage: null,
    author: userRef(ctx.state, s.author_id, ctx.origin),
  });

  r.post("/projects/:id/statuses/:sha", (req, res) => {
    const p = loadProject(ctx.state, req, res, ACCESS.developer);
    if (!p) return;
    const commit = resolveRef(p.repository, String(req.params.sha));
    if (!commit) return notFound(res, "Commit");
    const b = params(req);
    const state = str(b.state);
    if (!state) return missing(res, "state");
    if (!STATES.has(state)) return void res.status(400).json({ error: "state does not have a valid value" });
    const row: CommitStatusRow = {
      id: ++ctx.state.seq.record,
      project_id: p.id,
      sha: commit.id,
      ref: str(b.ref) ?? null,
      name: str(b.name) ?? str(b.context) ?? "default",
      status: state,
      target_url: str(b.target_url) ?? null,
      description: str(b.description) ?? null,
      created_at: ctx.state.clock.iso(),
      author_id: caller(res)!.user.id,
    };
    // the same name on the same sha and ref is one status, moved to its new state
    ctx.state.statuses = [
      ...(ctx.state.statuses ?? []).filter(
        (s) => !(s.project_id === p.id && s.sha === row.sha && s.name === row.name && s.ref === row.ref),
      ),
      row,
    ];
    res.status(201).json(statusJson(row));
  });

  r.get("/projects/:id/repository/commits/:sha/statuses", (req, res) => {
    const p = loadProject(ctx.state, req, res);
    if (!p) return;
    const commit = resolveRef(p.repository, String(req.params.sha));
    if (!commit) return notFound(res, "Commit");
    const q = req.query as Record<string, unknown>;
    const rows = (ctx.state.statuses ?? []).filter(
      (s) =>
        s.project_id === p.id &&
        s.sha === commit.id &&
        (typeof q.ref !== "string" || s.ref === q.ref) &&
        (typeof q.name !== "string" || s.name === q.name),
    );
    res.json(paginate(req, res, ctx.origin, rows).map(statusJson));
  });
}
