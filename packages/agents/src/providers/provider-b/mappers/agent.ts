// provider_b agents. Managed delivery → a Managed Agent (docs/wire/provider-b.md §3.5); Forward delivery →
// a Forward Template (docs/wire/provider-b.md §4.1). Both share the tool wiring; they differ in roster
// entries, files, vaults, environment variables and managed tool config.

import { DeclarationError } from "../../common/errors.js";
import { userMetadata } from "../../common/ownership.js";
import { rosterDesired } from "../../common/roster.js";
import type { Spec } from "../../types.js";
import { forwardRosterToWire, managedRosterToWire, rosterIdsFromWire } from "../wire-decisions.js";
import { envVarsMap, envVarsToManagedString } from "./environment-variables.js";
import { type GitRepositoryDecl, sessionResourcesToWire } from "./session-resources.js";
import {
  builtinFromWire,
  builtinToolsetToWire,
  type McpServerDecl,
  mcpToWire,
  type SkillRefDecl,
  skillRefType,
  type ToolsDecl,
} from "./tools.js";

export interface AgentDecl {
  name?: string;
  description?: string;
  model: string | Record<string, string>;
  instructions: string;
  environment?: string;
  tunnel?: string;
  tools?: ToolsDecl;
  mcp_servers?: McpServerDecl[];
  skills?: (string | SkillRefDecl)[];
  vault?: string;
  memory_stores?: string[];
  files?: (string | { file: string; mount_path: string })[];
  default_memory_store?: { name: string; description?: string; delete_on_destroy?: boolean };
  environment_variables?: Record<string, string>;
  managed_tool_config?: { enabled_tools: string[] };
  delivery?: { provider_b?: { type: "managed" | "forward" } };
  resources?: GitRepositoryDecl[];
  multiagent?: { type: "coordinator"; agents: (string | { agent_id: string })[] };
  metadata?: Record<string, string>;
}

export function isForward(decl: AgentDecl): boolean {
  return decl.delivery?.provider_b?.type === "forward";
}

function modelOf(decl: AgentDecl, agent: string): string {
  if (typeof decl.model === "string") return decl.model;
  const model = decl.model?.provider_b;
  if (!model)
    throw new DeclarationError(
      "provider_b.model_map_without_entry",
      `agent "${agent}": model has no entry for provider_b`,
    );
  return model;
}

interface ResolvedSkill {
  type: "custom" | "qoder";
  skill_id: string;
  version?: string;
}

export function resolveSkillRef(
  ref: string | SkillRefDecl,
  resolve: (name: string) => string,
): ResolvedSkill {
  if (typeof ref === "string") return { type: "custom", skill_id: resolve(ref) };
  return {
    type: skillRefType(ref.type),
    skill_id: ref.skill_id,
    ...(ref.version ? { version: ref.version } : {}),
  };
}

interface CommonInput {
  name: string;
  metadata: Record<string, string | null>;
  skills: ResolvedSkill[];
  /** Remote ids of roster members; undefined when the declaration has no roster. */
  roster?: string[];
  update: boolean;
}

function toolsAndServers(decl: AgentDecl, agent: string) {
  const { mcpServers, toolsets } = mcpToWire(decl.mcp_servers, decl.tools, agent);
  return { tools: [builtinToolsetToWire(decl.tools, agent), ...toolsets], mcpServers };
}

export function managedAgentToWire(decl: AgentDecl, input: CommonInput): Record<string, unknown> {
  const agent = input.name;
  if (decl.managed_tool_config) {
    throw new DeclarationError(
      "provider_b.managed_tool_config_on_managed_delivery",
      `agent "${agent}": managed_tool_config needs Forward delivery (delivery.provider_b.type: forward)`,
    );
  }
  const { tools, mcpServers } = toolsAndServers(decl, agent);
  const body: Record<string, unknown> = {
    name: input.name,
    model: modelOf(decl, agent),
    system: decl.instructions,
    tools,
    metadata: input.metadata,
  };
  if (decl.description !== undefined || input.update) body.description = decl.description ?? "";
  if (mcpServers.length || input.update) body.mcp_servers = mcpServers;
  if (input.skills.length || input.update) body.skills = input.skills;
  if (input.roster) body.multiagent = managedRosterToWire(input.roster);
  else if (input.update) body.multiagent = null;
  return body;
}

interface TemplateInput extends CommonInput {
  environmentId: string;
  vaultIds: string[];
  fileIds: string[];
  tunnelId?: string;
  /** Send an empty enabled set: the file dropped a `managed_tool_config` it declared before. */
  resetManagedTools?: boolean;
}

export function templateToWire(decl: AgentDecl, input: TemplateInput): Record<string, unknown> {
  const agent = input.name;
  const { tools, mcpServers } = toolsAndServers(decl, agent);
  const body: Record<string, unknown> = {
    name: input.name,
    description: decl.description ?? "",
    model: modelOf(decl, agent),
    system: decl.instructions,
    environment_id: input.environmentId,
    vault_ids: input.vaultIds,
    files: Object.fromEntries(input.fileIds.map((id) => [id, { enabled: true }])),
    metadata: input.metadata,
    tools,
    mcp_servers: mcpServers,
    skills: input.skills.map((s) => ({ ...s, enabled: true })),
  };
  if (input.tunnelId) body.tunnel_id = input.tunnelId;
  else if (input.update) body.tunnel_id = null;
  const vars = envVarsMap(decl.environment_variables);
  // On update an empty map clears defaults the file no longer declares.
  if (vars) body.environment_variables = vars;
  else if (input.update) body.environment_variables = {};
  // Replaces the whole enabled set ([] turns everything off); omitted = untouched (updates merge).
  if (decl.managed_tool_config)
    body.managed_tool_config = { enabled_tools: [...decl.managed_tool_config.enabled_tools] };
  else if (input.resetManagedTools) body.managed_tool_config = { enabled_tools: [] };
  if (input.roster) body.multiagent = forwardRosterToWire(input.roster);
  else if (input.update) body.multiagent = null;
  return body;
}

/** Comparable desired shape for both deliveries (what agentFromWire produces for a faithful read). */
export function agentDesired(decl: AgentDecl): Spec {
  const builtin = decl.tools?.builtin?.map((n) => n.toLowerCase()).sort();
  const ask = decl.tools?.builtin
    ? builtinFromWire([builtinToolsetToWire(decl.tools, decl.name ?? "agent")]).ask
    : [];
  const out: Spec = {
    ...(decl.name !== undefined ? { name: decl.name } : {}),
    ...(decl.description ? { description: decl.description } : {}),
    model: modelOf(decl, decl.name ?? "agent"),
    instructions: decl.instructions,
    tools: builtin ? { builtin, ask } : {},
    mcp_servers: (decl.mcp_servers ?? []).map((s) => ({ name: s.name, url: s.url })),
    metadata: { ...(decl.metadata ?? {}) },
    delivery: isForward(decl) ? "forward" : "managed",
    ...(decl.multiagent ? { multiagent: rosterDesired(decl) } : {}),
  };
  if (isForward(decl)) {
    if (decl.environment_variables) out.environment_variables = { ...decl.environment_variables };
    if (decl.managed_tool_config)
      out.managed_tool_config = { enabled_tools: [...decl.managed_tool_config.enabled_tools].sort() };
  }
  if (decl.default_memory_store) {
    out.default_memory_store = {
      name: decl.default_memory_store.name,
      ...(decl.default_memory_store.description !== undefined
        ? { description: decl.default_memory_store.description }
        : {}),
      ...(decl.default_memory_store.delete_on_destroy !== undefined
        ? { delete_on_destroy: decl.default_memory_store.delete_on_destroy }
        : {}),
    };
  }
  return out;
}

export function agentFromWire(remote: Record<string, unknown>, logicalName: string, forward: boolean): Spec {
  const { builtin, ask } = builtinFromWire(remote.tools);
  const out: Spec = {
    ...(remote.name !== logicalName ? { name: remote.name } : {}),
    ...(typeof remote.description === "string" && remote.description
      ? { description: remote.description }
      : {}),
    model: remote.model,
    instructions: remote.system,
    tools: builtin ? { builtin, ask } : {},
    mcp_servers: ((remote.mcp_servers ?? []) as { name: string; url?: string }[]).map((s) => ({
      name: s.name,
      url: s.url,
    })),
    metadata: userMetadata(remote.metadata),
    delivery: forward ? "forward" : "managed",
  };
  if (forward) {
    const vars = remote.environment_variables;
    if (vars && typeof vars === "object" && Object.keys(vars).length)
      out.environment_variables = { ...(vars as object) };
    const mtc = remote.managed_tool_config as { enabled_tools?: string[] } | undefined;
    if (mtc?.enabled_tools) out.managed_tool_config = { enabled_tools: [...mtc.enabled_tools].sort() };
  }
  return out;
}

export { rosterIdsFromWire };

interface ManagedSessionInput {
  agentId: string;
  environmentId: string;
  tunnelId?: string;
  vaultIds: string[];
  memoryStoreIds: string[];
  files: { file_id: string; mount_path: string }[];
  title?: string;
}

/** Body of a managed Session of this agent: env vars as `KEY=VALUE;…`, the agent's resources. */
export function managedSessionToWire(decl: AgentDecl, input: ManagedSessionInput): Record<string, unknown> {
  const body: Record<string, unknown> = { agent: input.agentId, environment_id: input.environmentId };
  if (input.tunnelId) body.tunnel_id = input.tunnelId;
  if (input.title) body.title = input.title;
  if (decl.environment_variables && Object.keys(decl.environment_variables).length) {
    body.environment_variables = envVarsToManagedString(decl.environment_variables);
  }
  if (input.vaultIds.length) body.vault_ids = input.vaultIds;
  const resources = sessionResourcesToWire({
    repositories: decl.resources,
    files: input.files,
    memoryStoreIds: input.memoryStoreIds,
  });
  if (resources.length) body.resources = resources;
  return body;
}
