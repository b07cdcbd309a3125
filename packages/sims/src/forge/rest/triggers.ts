import type { Request, Response } from "express";
import type { SimContext } from "../../core/sim.js";
import { loadProject, projectRecord, requireUser } from "../model/access.js";
import { createPipeline, pipelineJson, syncPipeline } from "../model/ci.js";
import { resolveRef } from "../model/repo.js";
import type { ForgeUser, TriggerRow } from "../model/state.js";
import { ACCESS, type ForgeState } from "../model/state.js";
import { userRef } from "../model/users.js";
import { isRedacted } from "../seed/auth.js";
import { forbidden, missing, notFound } from "../wire/answers.js";
import { paginate } from "../wire/paginate.js";
import { params, str } from "../wire/params.js";
import type { Routes } from "../wire/router.js";

/**
 * A project's pipeline trigger tokens (GitLab's ci/triggers.rb), for maintainers: the token reads
 * in full to the trigger's owner and as its first four characters to everyone else; only the owner
 * changes its description. `POST /projects/:id/trigger/pipeline` runs a pipeline with a token
 * (from the body or the query), as the trigger's owner; an unknown token answers 404 and no answer
 * ever repeats the token given.
 */

const T = "/projects/:id/triggers/:trigger_id";

export function triggerRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  const s = () => ctx.state;

  const json = (t: TriggerRow, me: ForgeUser) => ({
    id: t.id,
    token: t.owner_id === me.id ? t.token : t.token.slice(0, 4),
    description: t.description,
    created_at: t.created_at,
    updated_at: t.updated_at,
    last_used: t.last_used,
    expires_at: null,
    owner: userRef(s(), t.owner_id, ctx.origin),
  });

  const load = (req: Request, res: Response) => {
    const me = requireUser(res);
    if (!me) return null;
    const p = loadProject(s(), req, res, ACCESS.maintainer);
    if (!p) return null;
    const t = projectRecord(s().triggers, p, req, res, "trigger_id", "Trigger");
    return t && { me, t };
  };

  r.get("/projects/:id/triggers", (req, res) => {
    const me = requireUser(res);
    if (!me) return;
    const p = loadProject(s(), req, res, ACCESS.maintainer);
    if (!p) return;
    const rows = s().triggers.filter((t) => t.project_id === p.id);
    res.json(paginate(req, res, ctx.origin, rows).map((t) => json(t, me)));
  });

  r.get(T, (req, res) => {
    const l = load(req, res);
    if (l) res.json(json(l.t, l.me));
  });

  r.post("/projects/:id/triggers", (req, res) => {
    const me = requireUser(res);
    if (!me) return;
    const p = loadProject(s(), req, res, ACCESS.maintainer);
    if (!p) return;
    const description = str(params(req).description);
    if (description === undefined) return missing(res, "description");
    const now = s().clock.iso();
    const t: TriggerRow = {
      id: ++s().seq.record2,
      project_id: p.id,
      description,
      token: s().ids.next("glptt-", 40),
      owner_id: me.id,
      created_at: now,
      updated_at: now,
      last_used: null,
    };
    s().triggers.push(t);
    res.status(201).json(json(t, me));
  });

  r.put(T, (req, res) => {
    const l = load(req, res);
    if (!l) return;
    if (l.t.owner_id !== l.me.id) return forbidden(res);
    const description = str(params(req).description);
    if (description !== undefined) l.t.description = description;
    l.t.updated_at = s().clock.iso();
    res.json(json(l.t, l.me));
  });

  r.delete(T, (req, res) => {
    const l = load(req, res);
    if (!l) return;
    s().triggers = s().triggers.filter((x) => x !== l.t);
    res.status(204).end();
  });

  r.post("/projects/:id/trigger/pipeline", (req, res) => {
    const p = loadProject(s(), req, res);
    if (!p) return;
    const b = params(req);
    const absent = ["token", "ref"].filter((k) => str(b[k]) === undefined);
    if (absent.length) return missing(res, ...absent);
    const given = str(b.token)!;
    // a dumped (redacted) token is kept for its row, never accepted
    const t = s().triggers.find((x) => x.project_id === p.id && x.token === given && !isRedacted(x.token));
    if (!t) return notFound(res);
    const ref = str(b.ref)!;
    const commit = resolveRef(p.repository, ref);
    if (!commit) return void res.status(400).json({ message: { base: ["Reference not found"] } });
    // variables[KEY]=value (a form) or {"variables": {"KEY": "value"}} (JSON)
    const vars =
      b.variables && typeof b.variables === "object" ? (b.variables as Record<string, unknown>) : {};
    const variables = Object.entries(vars).map(([key, value]) => ({ key, value: String(value) }));
    const pl = createPipeline(s(), p, ref, commit.id, t.owner_id, "trigger", variables);
    syncPipeline(s(), pl);
    t.last_used = s().clock.iso();
    res.status(201).json(pipelineJson(s(), pl, ctx.origin));
  });
}
