// What provider_b handlers need from the rest of agents.yaml (the adapter's `derive` hook):
// the API domain of every resource a Forward agent uses (spec: Forward environments and
// resources, rules 1–3), the default identity, and the local files a Template inherits (the
// string form of an agent's `files`: paths relative to agents.yaml).
import type { ApiDomain } from "./client.js";

type Decl = Record<string, unknown>;
type Config = {
  defaults?: { identity?: string };
  agents?: Record<string, Decl>;
  files?: Record<string, Decl>;
} & Record<string, unknown>;

interface Derived {
  domain?: ApiDomain;
  /** Set when Managed and Forward agents share one declaration (rule 3): create refuses it. */
  domain_conflict?: string;
  identity?: string;
  files?: { name: string; source: string }[];
}

function isForwardAgent(agent: Decl): boolean {
  return (agent.delivery as { provider_b?: { type?: string } } | undefined)?.provider_b?.type === "forward";
}

function usedNames(agent: Decl, kind: string): string[] {
  switch (kind) {
    case "environments":
      return typeof agent.environment === "string" ? [agent.environment] : [];
    case "vaults":
      return typeof agent.vault === "string" ? [agent.vault] : [];
    case "memory_stores":
      return Array.isArray(agent.memory_stores) ? (agent.memory_stores as string[]) : [];
    case "skills":
      return Array.isArray(agent.skills)
        ? (agent.skills as unknown[]).filter((s): s is string => typeof s === "string")
        : [];
    default:
      return [];
  }
}

/** Which Managed and Forward agents use each environment, vault, memory store and skill, by name. */
type Users = Map<string, Map<string, { forward: string[]; managed: string[] }>>;

/**
 * Built once per config object and kept while it lives: derive runs for every provider_b
 * resource, and looking through every agent for each one made a plan of thousands of resources
 * quadratic in the number of agents.
 */
const usersByConfig = new WeakMap<object, Users>();

function usersOf(cfg: Config): Users {
  let users = usersByConfig.get(cfg);
  if (users) return users;
  users = new Map();
  for (const [agentName, agent] of Object.entries(cfg.agents ?? {})) {
    const pin = agent.provider;
    if (pin !== undefined && pin !== "provider_b") continue;
    const side = isForwardAgent(agent) ? "forward" : "managed";
    for (const kind of USED_KINDS) {
      const byName = users.get(kind) ?? new Map<string, { forward: string[]; managed: string[] }>();
      users.set(kind, byName);
      // An agent naming the same resource twice is one user of it.
      for (const used of new Set(usedNames(agent, kind))) {
        const entry = byName.get(used) ?? { forward: [], managed: [] };
        byName.set(used, entry);
        entry[side].push(agentName);
      }
    }
  }
  usersByConfig.set(cfg, users);
  return users;
}

const USED_KINDS = ["environments", "vaults", "memory_stores", "skills"];

export function deriveProviderB(config: Decl, kind: string, name: string): Derived | undefined {
  const cfg = config as Config;
  if (kind === "agents") {
    const agent = cfg.agents?.[name];
    if (!agent || !isForwardAgent(agent)) return { domain: "managed" };
    const files = (Array.isArray(agent.files) ? (agent.files as unknown[]) : [])
      .filter((f): f is string => typeof f === "string")
      .map((f) => ({ name: f, source: f }));
    return { domain: "forward", identity: cfg.defaults?.identity, files };
  }
  if (kind === "channels") {
    const channel = (cfg.channels as Record<string, Decl> | undefined)?.[name];
    return { identity: (channel?.identity as string | undefined) ?? cfg.defaults?.identity };
  }
  if (!USED_KINDS.includes(kind)) return undefined;
  // An external environment (environment_id) may come from either API, for agents of either
  // delivery (rule 1; rule 3 binds only local ones): its domain is found by reading it.
  if (
    kind === "environments" &&
    typeof (cfg.environments as Record<string, Decl> | undefined)?.[name]?.environment_id === "string"
  )
    return {};
  const { forward, managed } = usersOf(cfg).get(kind)?.get(name) ?? { forward: [], managed: [] };
  const out: Derived = { domain: forward.length ? "forward" : "managed" };
  if (forward.length && managed.length) {
    out.domain_conflict = `${kind} "${name}" is used by Managed agent(s) ${managed.join(", ")} and Forward agent(s) ${forward.join(", ")}; declare one per API domain`;
  }
  if (kind === "memory_stores" && forward.length) out.identity = cfg.defaults?.identity;
  return out;
}

export function derivedOf(spec: Record<string, unknown>): Derived {
  return (spec.derived as Derived | undefined) ?? {};
}

export function domainOf(spec: Record<string, unknown>): ApiDomain {
  return derivedOf(spec).domain ?? "managed";
}
