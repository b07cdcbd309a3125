// Coordinator rosters in the comparable spec of provider_a and provider_b. The remote holds only
// member ids; to show a diff in the user's own words, ids of project members are mapped back to
// their logical names (through the ids recorded in state) and any other id stays `{agent_id}`.
// Without this a roster edit, or removing `multiagent`, would plan as "no changes".
import type { HandlerContext, Spec } from "../types.js";

type RosterMember = string | { agent_id: string };
interface RosterSpec {
  type: "coordinator";
  agents: RosterMember[];
}

/** The declared roster as compared: members in declared order, external ids as `{agent_id}`. */
export function rosterDesired(decl: { multiagent?: RosterSpec } | undefined): RosterSpec | undefined {
  if (!decl?.multiagent) return undefined;
  return {
    type: "coordinator",
    agents: decl.multiagent.agents.map((m) => (typeof m === "string" ? m : { agent_id: m.agent_id })),
  };
}

/**
 * The remote roster in the declared shape. `declared` is the spec whose member names may be
 * known in state (the last-applied or the one being applied); a member not applied yet cannot
 * match any remote id, so it simply shows as missing.
 */
export function rosterObserved(
  ctx: Pick<HandlerContext, "resolve">,
  remoteIds: string[] | undefined,
  declared: Spec | undefined,
): RosterSpec | undefined {
  if (!remoteIds || remoteIds.length === 0) return undefined;
  const names = new Map<string, string>();
  const roster = (declared as { multiagent?: RosterSpec } | undefined)?.multiagent;
  for (const m of roster?.agents ?? []) {
    if (typeof m !== "string") continue;
    try {
      names.set(ctx.resolve("agents", m), m);
    } catch {
      // Not in state (yet): it cannot be the owner of any remote id.
    }
  }
  return {
    type: "coordinator",
    agents: remoteIds.map((id) => names.get(id) ?? { agent_id: id }),
  };
}

/**
 * Sets `multiagent` on a comparable spec. No roster is an observation too (`null`): a roster
 * cleared remotely is drift, and an agent that never declared one compares null with nothing.
 */
export function withRoster(spec: Spec, roster: RosterSpec | undefined): Spec {
  spec.multiagent = roster ?? null;
  return spec;
}
