// Remote ids inside a listed spec → the logical names of the common schema. A roster member is
// resolved by ownership metadata (spec, Multi-agent rule 12): the project's own agents become
// their logical names, anyone else's stay `{agent_id}`, and anything ambiguous is a problem that
// stops the sync. Skill references go back to names through the state, since skills carry no
// ownership metadata on every provider.
import { parseAddress } from "../model/address.js";
import { isPlainObject } from "../model/field-path.js";
import type { ProviderName, Spec } from "../providers/types.js";
import { type Claims, claimedAddress, idKey, type Listed } from "./claims.js";

interface ReferenceContext {
  claims: Claims;
  provider: ProviderName;
  /** Where the reference sits, for messages (`provider_c.agents["lead"]`). */
  holder: string;
  /** Member ids the existing file already declares as `{agent_id}` (explicitly external). */
  declaredExternal: Set<string>;
  /** Remote skill id → logical name, from the state of this provider. */
  skillNames: Map<string, string>;
  problems: string[];
}

export function mapAgentReferences(spec: Spec, ctx: ReferenceContext): Spec {
  const out: Spec = { ...spec };
  if (isPlainObject(spec.multiagent) && Array.isArray(spec.multiagent.agents)) {
    out.multiagent = {
      ...spec.multiagent,
      agents: spec.multiagent.agents.map((member) => mapMember(member, ctx)),
    };
  }
  if (Array.isArray(spec.skills)) {
    out.skills = spec.skills.map((skill) => {
      if (!isPlainObject(skill) || typeof skill.skill_id !== "string") return skill;
      return ctx.skillNames.get(skill.skill_id) ?? skill;
    });
  }
  return out;
}

function mapMember(member: unknown, ctx: ReferenceContext): unknown {
  if (!isPlainObject(member) || typeof member.agent_id !== "string") return member;
  const id = member.agent_id;
  const listed = ctx.claims.byId.get(idKey(ctx.provider, "agents", id));
  if (!listed) {
    if (ctx.declaredExternal.has(id)) return { agent_id: id };
    ctx.problems.push(
      `${ctx.holder}: roster member ${id} is missing from the ${ctx.provider} agent listing ` +
        "(deleted outside agents?); restore it remotely, or remove it from the coordinator and run sync again",
    );
    return member;
  }
  if (listed.remote.owner?.project !== ctx.claims.project) return { agent_id: id };
  return ownedMemberName(listed, ctx) ?? member;
}

function ownedMemberName(listed: Listed, ctx: ReferenceContext): string | undefined {
  const id = listed.remote.id;
  if (listed.remote.archived) {
    ctx.problems.push(
      `${ctx.holder}: roster member ${id} belongs to project "${ctx.claims.project}" but is archived; ` +
        "remove it from the coordinator's roster remotely (or unarchive it) and run sync again",
    );
    return undefined;
  }
  const address = claimedAddress(listed);
  if (!address) {
    ctx.problems.push(
      `${ctx.holder}: roster member ${id} belongs to project "${ctx.claims.project}" but lacks a logical name ` +
        `(its agents.resource metadata is ${JSON.stringify(listed.remote.owner?.resource ?? "")}); ` +
        'set agents.resource to an address such as provider_x.agents["name"] and run sync again',
    );
    return undefined;
  }
  if (ctx.claims.duplicates.has(address)) return undefined; // reported once for the whole sync
  const parsed = parseAddress(address);
  return parsed.ok ? parsed.value.name : undefined;
}
