// provider_a agents: the body mapping of docs/wire/provider-a.md §3.5 (model object, `system`, builtin and
// MCP toolkits, official MCP servers by name, versioned skill references, roster ids).

import { DeclarationError } from "../../common/errors.js";
import { type Metadata, userMetadata } from "../../common/ownership.js";
import { rosterDesired } from "../../common/roster.js";
import type { Spec } from "../../types.js";
import { providerACapabilities } from "../capabilities.js";
import { CLEARED_ROSTER, rosterToWire } from "../wire-decisions.js";

/** The builtin tools provider_a knows (one list, shared with config validation). */
const PROVIDER_A_BUILTIN_TOOLS: readonly string[] = providerACapabilities.agents.builtinTools;

interface McpToolkitDecl {
  type?: string;
  mcp_server_name?: string;
  mcpServerName?: string;
  default_config?: { enabled: boolean };
  defaultConfig?: { enabled: boolean };
  configs?: { name: string; enabled: boolean }[];
}

export interface AgentDecl {
  name?: string;
  description?: string;
  model: string | Record<string, string>;
  instructions: string;
  tools?: {
    builtin?: string[];
    default_permission?: "allow" | "ask";
    permissions?: Record<string, "allow" | "ask">;
    mcp?: McpToolkitDecl[];
  };
  mcp_servers?: { name: string; type?: string; url?: string }[];
  skills?: (string | { type: string; skill_id: string; version?: string })[];
  multiagent?: { type: "coordinator"; agents: (string | { agent_id: string })[] };
  metadata?: Record<string, string>;
}

/**
 * A skill reference after the handler resolved ids and versions. Custom skills always carry a
 * version; an official skill declared without one is sent without it (the catalog's current one).
 */
export interface ResolvedSkillRef {
  type: "customer" | "official";
  skill_id: string;
  version?: string;
}

export function modelFor(model: AgentDecl["model"], provider: string, agent: string): string {
  if (typeof model === "string") return model;
  const picked = model?.[provider];
  if (!picked)
    throw new DeclarationError(
      "provider_a.model_map_without_entry",
      `agent "${agent}": model has no entry for ${provider}`,
    );
  return picked;
}

interface AgentWireInput {
  name: string;
  metadata: Metadata;
  skills: ResolvedSkillRef[];
  /** Remote ids of roster members (project members resolved, external kept); undefined = no roster. */
  roster?: string[];
  /** On update a missing roster is sent as an explicit clear (spec Multi-agent rule 8). */
  clearRoster: boolean;
  warn(message: string): void;
}

export function agentToWire(decl: AgentDecl, input: AgentWireInput): Record<string, unknown> {
  const agent = input.name;
  if (
    decl.tools?.default_permission === "ask" ||
    Object.values(decl.tools?.permissions ?? {}).includes("ask")
  ) {
    throw new DeclarationError(
      "provider_a.permission_ask",
      `agent "${agent}": provider_a cannot enforce tool permission ask; use allow`,
    );
  }
  const tools: Record<string, unknown>[] = [];
  if (decl.tools?.builtin) {
    const supported = new Set<string>(PROVIDER_A_BUILTIN_TOOLS);
    const names = decl.tools.builtin.map((n) => n.toLowerCase());
    const dropped = names.filter((n) => !supported.has(n));
    if (dropped.length)
      input.warn(`agent "${agent}": provider_a has no builtin tool ${dropped.join(", ")}; not sent`);
    tools.push({
      type: "builtin_toolkit",
      default_config: { enabled: false },
      configs: names.filter((n) => supported.has(n)).map((name) => ({ name, enabled: true })),
    });
  } else {
    tools.push({ type: "builtin_toolkit", default_config: { enabled: true }, configs: [] });
  }
  const mcpServers = (decl.mcp_servers ?? []).map((server) => {
    if (server.url !== undefined || (server.type && server.type !== "official")) {
      throw new DeclarationError(
        "provider_a.mcp_server_by_url",
        `agent "${agent}": MCP server "${server.name}" must be an official provider_a server referenced by name (URL servers are not supported)`,
      );
    }
    return { type: "official", name: server.name };
  });
  for (const toolkit of decl.tools?.mcp ?? []) {
    const serverName = toolkit.mcp_server_name ?? toolkit.mcpServerName;
    if (!serverName)
      throw new DeclarationError(
        "provider_a.mcp_toolkit_without_server",
        `agent "${agent}": tools.mcp entry needs mcp_server_name`,
      );
    if (!mcpServers.some((s) => s.name === serverName)) {
      throw new DeclarationError(
        "provider_a.mcp_toolkit_server_undeclared",
        `agent "${agent}": tools.mcp names "${serverName}", which is not in mcp_servers`,
      );
    }
    tools.push({
      type: "mcp_toolkit",
      mcp_server_name: serverName,
      default_config: toolkit.default_config ?? toolkit.defaultConfig ?? { enabled: false },
      configs: (toolkit.configs ?? []).map((c) => ({ name: c.name, enabled: c.enabled })),
    });
  }
  const body: Record<string, unknown> = {
    name: input.name,
    model: { id: modelFor(decl.model, "provider_a", agent) },
    system: decl.instructions,
    tools,
    metadata: input.metadata,
  };
  if (decl.description !== undefined) body.description = decl.description;
  if (mcpServers.length) body.mcp_servers = mcpServers;
  if (input.skills.length)
    body.skills = input.skills.map((s) =>
      s.version === undefined ? { type: s.type, skill_id: s.skill_id } : s,
    );
  if (input.roster) body.multiagent = rosterToWire(input.roster);
  else if (input.clearRoster) body.multiagent = CLEARED_ROSTER;
  return body;
}

export function agentDesired(decl: AgentDecl): Spec {
  return {
    ...(decl.name !== undefined ? { name: decl.name } : {}),
    ...(decl.description ? { description: decl.description } : {}),
    model: modelFor(decl.model, "provider_a", decl.name ?? "agent"),
    instructions: decl.instructions,
    tools: {
      builtin: (decl.tools?.builtin ?? [...PROVIDER_A_BUILTIN_TOOLS])
        .map((n) => n.toLowerCase())
        .filter((n) => PROVIDER_A_BUILTIN_TOOLS.includes(n))
        .sort(),
    },
    mcp_servers: (decl.mcp_servers ?? []).map((s) => s.name).sort(),
    metadata: { ...(decl.metadata ?? {}) },
    ...(decl.multiagent ? { multiagent: rosterDesired(decl) } : {}),
  };
}

/** Remote agent in the comparable shape of agentDesired; the handler adds the roster (it needs state). */
export function agentFromWire(remote: Record<string, unknown>, logicalName: string): Spec {
  const tools = Array.isArray(remote.tools) ? (remote.tools as Record<string, unknown>[]) : [];
  const builtin = tools.find((t) => t.type === "builtin_toolkit");
  const defaultOn = (builtin?.default_config as { enabled?: boolean } | undefined)?.enabled === true;
  const configs = (builtin?.configs ?? []) as { name: string; enabled: boolean }[];
  const enabled = defaultOn
    ? PROVIDER_A_BUILTIN_TOOLS.filter((n) => configs.find((c) => c.name === n)?.enabled !== false)
    : configs.filter((c) => c.enabled).map((c) => c.name);
  const model = remote.model as { id?: string } | string | undefined;
  return {
    ...(remote.name !== logicalName ? { name: remote.name } : {}),
    ...(typeof remote.description === "string" && remote.description
      ? { description: remote.description }
      : {}),
    model: typeof model === "string" ? model : model?.id,
    instructions: remote.system,
    tools: { builtin: [...enabled].sort() },
    mcp_servers: ((remote.mcp_servers ?? []) as { name: string }[]).map((s) => s.name).sort(),
    metadata: userMetadata(remote.metadata),
  };
}
