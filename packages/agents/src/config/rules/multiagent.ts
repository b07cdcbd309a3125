import { dependencyCycles } from "../../model/graph.js";
import type { AgentDecl } from "../schema/index.js";
import { deliveryOf } from "../targets.js";
import type { RuleContext } from "./context.js";

const MAX_ROSTER = 20;

function projectMembers(agent: AgentDecl): { name: string; index: number }[] {
  return (agent.multiagent?.agents ?? []).flatMap((member, index) =>
    typeof member === "string" ? [{ name: member, index }] : [],
  );
}

/** Roster rules, enforced on every provider (spec: Multi-agent). */
export function checkMultiagent(ctx: RuleContext): void {
  const agents = ctx.config.agents ?? {};
  const inCycle = new Set<string>();
  const rosterEdges = {
    id: ([name]: [string, AgentDecl]) => name,
    deps: ([, agent]: [string, AgentDecl]) => projectMembers(agent).map((m) => m.name),
  };
  // Roster members are the only references that can lead back to their resource: this is the
  // one place a dependency cycle is reported, so plan and apply never meet one. Without a roster
  // there is no edge, so no cycle: the search is skipped.
  const entries = Object.entries(agents);
  const anyRoster = entries.some(([, agent]) => agent.multiagent?.agents !== undefined);
  for (const cycle of anyRoster ? dependencyCycles(entries, rosterEdges) : []) {
    const [start] = cycle;
    for (const name of cycle.slice(0, -1)) inCycle.add(name);
    const from = agents[start!]!;
    const index = projectMembers(from).find((m) => m.name === cycle[1])?.index ?? 0;
    ctx.report(
      "AGENTS1303",
      `agents.${start}: roster members form a cycle: ${cycle.join(" → ")}`,
      ["agents", start!, "multiagent", "agents", index],
      "a coordinator's members must be plain agents; break the cycle",
    );
  }

  for (const [name, agent] of Object.entries(agents)) {
    const roster = agent.multiagent?.agents;
    if (!roster) continue;
    const base = ["agents", name, "multiagent", "agents"];
    if (roster.length > MAX_ROSTER) {
      ctx.report(
        "AGENTS1300",
        `agents.${name}: the roster has ${roster.length} members; at most ${MAX_ROSTER} are allowed`,
        base,
        "split the work between several coordinators, each with its own roster",
      );
    }
    const seen = new Set<string>();
    roster.forEach((member, index) => {
      const key = typeof member === "string" ? `name:${member}` : `id:${member.agent_id}`;
      if (seen.has(key)) {
        ctx.report(
          "AGENTS1306",
          `agents.${name}: roster member ${typeof member === "string" ? `"${member}"` : `{agent_id: ${member.agent_id}}`} is listed twice`,
          [...base, index],
          "remove the repeated entry",
        );
      }
      seen.add(key);
    });
    for (const { name: member, index } of projectMembers(agent)) {
      if (member === name) {
        ctx.report(
          "AGENTS1301",
          `agents.${name}: a coordinator cannot list itself as a member`,
          [...base, index],
          "remove the self reference",
        );
        continue;
      }
      const target = agents[member];
      if (target?.multiagent && !(inCycle.has(name) && inCycle.has(member))) {
        ctx.report(
          "AGENTS1302",
          `agents.${name}: member "${member}" is itself a coordinator; nested coordinators are not allowed`,
          [...base, index],
          `list ${member}'s members directly, or remove multiagent from ${member}`,
        );
      }
    }
    for (const { provider, caps } of ctx.targets(agent)) {
      const delivery = deliveryOf(agent, caps);
      if (delivery === "forward" && !caps.agents.forwardAcceptsExternalMembers) {
        roster.forEach((member, index) => {
          if (typeof member !== "string") {
            ctx.report(
              "AGENTS1304",
              `agents.${name}: a Forward coordinator on ${provider} cannot list an external {agent_id} member`,
              [...base, index],
              "its roster needs Template ids; declare the member in this file with Forward delivery",
            );
          }
        });
      }
      for (const { name: member, index } of projectMembers(agent)) {
        const target = agents[member];
        if (!target || member === name) continue;
        const memberDelivery = deliveryOf(target, caps);
        if (memberDelivery !== delivery) {
          ctx.report(
            "AGENTS1305",
            `agents.${name}: member "${member}" uses ${memberDelivery} delivery on ${provider} but the coordinator uses ${delivery}`,
            [...base, index],
            "every member must use its coordinator's delivery type",
          );
        }
      }
    }
  }
}
