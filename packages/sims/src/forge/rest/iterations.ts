import type { SimContext } from "../../core/sim.js";
import { groupById, groupChain, groupFullPath, loadGroup } from "../model/access.js";
import type { ForgeState } from "../model/state.js";
import { paginate } from "../wire/paginate.js";
import { boolParam, str } from "../wire/params.js";
import type { Routes } from "../wire/router.js";

/** A group's iterations (Premium, GitLab's iterations.rb): state 1 upcoming, 2 current, 3 closed. */

export function iterationRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  const s = () => ctx.state;

  // iterations (Premium): state 1 upcoming, 2 current, 3 closed, from the dates and today
  r.get("/groups/:id/iterations", (req, res) => {
    const g = loadGroup(s(), req, res);
    if (!g) return;
    const q = req.query as Record<string, unknown>;
    const today = ctx.state.clock.iso().slice(0, 10);
    const stateOf = (i: { start_date: string; due_date: string }) =>
      i.start_date > today ? 1 : i.due_date < today ? 3 : 2;
    const ancestors = boolParam(q.include_ancestors) !== false;
    const descendants = boolParam(q.include_descendants) === true;
    const inScope = (gid: number) => {
      if (gid === g.id) return true;
      const other = groupById(s(), gid);
      if (!other) return false;
      if (ancestors && groupChain(s(), g).includes(other)) return true;
      return descendants && groupChain(s(), other).includes(g);
    };
    const wanted = str(q.state) ?? "all";
    const codes: Record<string, number[]> = {
      opened: [1, 2],
      upcoming: [1],
      current: [2],
      closed: [3],
      all: [1, 2, 3],
    };
    const allowed = codes[wanted];
    if (!allowed) return void res.status(400).json({ error: "state does not have a valid value" });
    const term = str(q.search)?.toLowerCase();
    const rows = ctx.state.iterations
      .filter((i) => inScope(i.group_id) && allowed.includes(stateOf(i)))
      .filter((i) => !term || (i.title ?? "").toLowerCase().includes(term))
      .sort((a, b) => (a.due_date < b.due_date ? -1 : 1));
    res.json(
      paginate(req, res, ctx.origin, rows).map((i) => {
        const owner = groupById(s(), i.group_id)!;
        return {
          id: i.id,
          iid: i.iid,
          sequence: i.iid,
          group_id: i.group_id,
          title: i.title,
          description: i.description,
          state: stateOf(i),
          created_at: i.created_at,
          updated_at: i.updated_at,
          start_date: i.start_date,
          due_date: i.due_date,
          web_url: `${ctx.origin}/groups/${groupFullPath(s(), owner)}/-/iterations/${i.id}`,
        };
      }),
    );
  });
}
