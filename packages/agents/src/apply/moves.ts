// The moves a plan shows (`moved:` entries): made in state, in one write, before any step runs,
// so each step finds its resource's entry at the address the plan gave it.
import { parseAddress } from "../model/address.js";
import type { Plan } from "../plan/types.js";
import type { LockedState } from "../state/locked-state.js";
import { moveEntry } from "../state/moves.js";

export async function recordMoves(plan: Plan, store: LockedState): Promise<void> {
  const moves = plan.actions.filter((a) => a.previousAddress !== undefined);
  if (moves.length === 0) return;
  await store.update((resources) => {
    for (const action of moves) {
      const from = action.previousAddress!;
      // The plan was made against this state (a saved plan's serial is checked): still there.
      if (!resources[from] || resources[action.address]) continue;
      const to = parseAddress(action.address);
      if (to.ok) moveEntry(resources, from, to.value);
    }
  });
}
