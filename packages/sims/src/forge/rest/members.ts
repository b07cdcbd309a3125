import type { Request, Response } from "express";
import type { SimContext } from "../../core/sim.js";
import { groupById, groupChain, loadGroup, loadProject, requireUser } from "../model/access.js";
import type { ForgeState, Member, Project } from "../model/state.js";
import { ACCESS, userById, userByName } from "../model/state.js";
import { missing, notFound } from "../wire/answers.js";
import { paginate } from "../wire/paginate.js";
import { params, str } from "../wire/params.js";
import type { Routes } from "../wire/router.js";
import { memberJson } from "./projects.js";

/**
 * Project members: the direct ones (`/members`: the project's own, and the owner of a personal
 * project), or everyone with access (`/members/all`: also the members of the groups above it,
 * each at their highest level), one by user id, and adding a member (maintainers); a group's
 * members (`/groups/:id/members`, and `/all` with its ancestors'), as GitLab's members.rb serves both.
 */

const LEVELS = new Set<number>(Object.values(ACCESS));

function direct(_state: ForgeState, p: Project): Member[] {
  const rows = [...p.members];
  if (p.namespace.kind === "user" && !rows.some((m) => m.user_id === p.namespace.id))
    rows.unshift({ user_id: p.namespace.id, access_level: ACCESS.owner });
  return rows;
}

function all(state: ForgeState, p: Project): Member[] {
  const best = new Map<number, Member>();
  const groups = p.namespace.kind === "group" ? groupChain(state, groupById(state, p.namespace.id)!) : [];
  for (const m of [...groups.flatMap((g) => g.members), ...direct(state, p)]) {
    const prev = best.get(m.user_id);
    if (!prev || prev.access_level < m.access_level) best.set(m.user_id, m);
  }
  return [...best.values()];
}

export function memberRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  const s = () => ctx.state;

  const list = (which: typeof direct) => (req: Request, res: Response) => {
    const p = loadProject(s(), req, res);
    if (!p) return;
    const query = str((req.query as Record<string, unknown>).query)?.toLowerCase();
    const rows = which(s(), p)
      .map((m) => memberJson(s(), m, ctx.origin))
      .filter((x) => x !== null)
      .filter(
        (x) => !query || x.username.toLowerCase().includes(query) || x.name.toLowerCase().includes(query),
      )
      .sort((a, b) => a.id - b.id);
    res.json(paginate(req, res, ctx.origin, rows));
  };
  const one = (which: typeof direct) => (req: Request, res: Response) => {
    const p = loadProject(s(), req, res);
    if (!p) return;
    const m = which(s(), p).find((x) => x.user_id === Number(req.params.user_id));
    const row = m && memberJson(s(), m, ctx.origin);
    if (!row) return notFound(res);
    res.json(row);
  };

  r.get("/projects/:id/members/all", list(all));
  r.get("/projects/:id/members/all/:user_id", one(all));
  r.get("/projects/:id/members", list(direct));
  r.get("/projects/:id/members/:user_id", one(direct));

  r.post("/projects/:id/members", (req, res) => {
    if (!requireUser(res)) return;
    const p = loadProject(s(), req, res, ACCESS.maintainer);
    if (!p) return;
    const b = params(req);
    const absent = [
      ...(b.user_id === undefined && b.username === undefined ? ["user_id"] : []),
      ...(b.access_level === undefined ? ["access_level"] : []),
    ];
    if (absent.length) return missing(res, ...absent);
    const level = Number(b.access_level);
    if (!LEVELS.has(level))
      return void res.status(400).json({ error: "access_level does not have a valid value" });
    const user =
      b.user_id !== undefined ? userById(s(), Number(b.user_id)) : userByName(s(), String(b.username));
    if (!user) return notFound(res, "User");
    if (p.members.some((m) => m.user_id === user.id))
      return void res.status(409).json({ message: "Member already exists" });
    const member = { user_id: user.id, access_level: level };
    p.members.push(member);
    res.status(201).json(memberJson(s(), member, ctx.origin));
  });

  // a group's members, or (all) with those inherited from its ancestors, the highest level each
  for (const path of ["/groups/:id/members", "/groups/:id/members/all"]) {
    r.get(path, (req, res) => {
      const g = loadGroup(ctx.state, req, res);
      if (!g) return;
      const chain = path.endsWith("/all") ? groupChain(ctx.state, g) : [g];
      const best = new Map<number, Member>();
      for (const x of chain) {
        for (const m of x.members) {
          const prev = best.get(m.user_id);
          if (!prev || prev.access_level < m.access_level) best.set(m.user_id, m);
        }
      }
      const rows = [...best.values()]
        .map((m) => memberJson(ctx.state, m, ctx.origin))
        .filter((x) => x !== null);
      res.json(paginate(req, res, ctx.origin, rows));
    });
  }
}
