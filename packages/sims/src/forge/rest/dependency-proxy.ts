import type { SimContext } from "../../core/sim.js";
import { loadGroup } from "../model/access.js";
import { ACCESS, type ForgeState } from "../model/state.js";
import type { Routes } from "../wire/router.js";
import { groupLevel } from "./groups.js";

/** A group's dependency proxy (GitLab's dependency_proxy.rb): purging its cache. */

export function dependencyProxyRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  const s = () => ctx.state;

  // the dependency proxy's cache: purged in the background (202), by the group's owners
  r.delete("/groups/:id/dependency_proxy/cache", (req, res) => {
    const g = loadGroup(s(), req, res);
    if (!g || !groupLevel(ctx, res, g, ACCESS.owner)) return;
    const row = ctx.state.dependencyProxy.find((d) => d.group_id === g.id);
    if (row) row.blobs = [];
    res.status(202).end();
  });
}
