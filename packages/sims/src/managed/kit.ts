import type { SimContext } from "../core/sim.js";
import type { Dialect, Kit, State } from "./state.js";

export function makeKit(dialect: Dialect, ctx: SimContext<State>): Kit {
  // Timestamps are strictly increasing (at least 1 ms apart), so "newest first" is a total order
  // even for objects created within one millisecond.
  return {
    dialect,
    state: () => ctx.state,
    clock: ctx.clock,
    ids: ctx.ids,
    newId: (kind) => ctx.ids.next(dialect.idPrefix[kind]),
    now: () => {
      const s = ctx.state;
      s.lastTimestamp = Math.max(ctx.clock.now(), s.lastTimestamp + 1);
      return new Date(s.lastTimestamp).toISOString();
    },
  };
}
