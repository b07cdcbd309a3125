import type { SimContext } from "../core/sim.js";
import type { Dialect, Kit, State } from "./state.js";

export function makeKit(dialect: Dialect, ctx: SimContext<State>): Kit {
  // Timestamps are strictly increasing (at least 1 ms apart), so "newest first" is a total order
  // even for objects created within one millisecond.
  let last = 0;
  return {
    dialect,
    state: () => ctx.state,
    clock: ctx.clock,
    ids: ctx.ids,
    newId: (kind) => ctx.ids.next(dialect.idPrefix[kind]),
    now: () => {
      last = Math.max(ctx.clock.now(), last + 1);
      return new Date(last).toISOString();
    },
  };
}
