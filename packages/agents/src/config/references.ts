import type { Kind } from "../model/kinds.js";
import type { AgentDecl, ChannelDecl, Config, DeploymentDecl } from "./schema/index.js";

/** One logical reference from a declaration to another declared resource. */
export interface Reference {
  kind: Kind;
  name: string;
  /** Path of the referencing value, relative to the declaring resource. */
  path: (string | number)[];
  /** Why the reference exists, used in messages ("environment", "roster member", ...). */
  role: string;
}

export function agentReferences(agent: AgentDecl): Reference[] {
  const refs: Reference[] = [];
  if (agent.environment !== undefined)
    refs.push({ kind: "environments", name: agent.environment, path: ["environment"], role: "environment" });
  if (agent.tunnel !== undefined)
    refs.push({ kind: "tunnels", name: agent.tunnel, path: ["tunnel"], role: "tunnel" });
  if (agent.vault !== undefined)
    refs.push({ kind: "vaults", name: agent.vault, path: ["vault"], role: "vault" });
  agent.skills?.forEach((skill, i) => {
    if (typeof skill === "string")
      refs.push({ kind: "skills", name: skill, path: ["skills", i], role: "skill" });
  });
  agent.memory_stores?.forEach((store, i) => {
    refs.push({ kind: "memory_stores", name: store, path: ["memory_stores", i], role: "memory store" });
  });
  agent.files?.forEach((file, i) => {
    // A string is a local path a Forward Template inherits, not a reference to a declared File.
    if (typeof file !== "string")
      refs.push({ kind: "files", name: file.file, path: ["files", i, "file"], role: "file" });
  });
  agent.multiagent?.agents.forEach((member, i) => {
    if (typeof member === "string")
      refs.push({ kind: "agents", name: member, path: ["multiagent", "agents", i], role: "roster member" });
  });
  return refs;
}

function deploymentReferences(deployment: DeploymentDecl): Reference[] {
  const refs: Reference[] = [{ kind: "agents", name: deployment.agent, path: ["agent"], role: "agent" }];
  if (deployment.environment !== undefined)
    refs.push({
      kind: "environments",
      name: deployment.environment,
      path: ["environment"],
      role: "environment",
    });
  if (deployment.tunnel !== undefined)
    refs.push({ kind: "tunnels", name: deployment.tunnel, path: ["tunnel"], role: "tunnel" });
  deployment.vaults?.forEach((vault, i) => {
    refs.push({ kind: "vaults", name: vault, path: ["vaults", i], role: "vault" });
  });
  deployment.memory_stores?.forEach((store, i) => {
    refs.push({ kind: "memory_stores", name: store, path: ["memory_stores", i], role: "memory store" });
  });
  deployment.resources?.forEach((resource, i) => {
    if (resource.type === "memory_store")
      refs.push({
        kind: "memory_stores",
        name: resource.memory_store,
        path: ["resources", i, "memory_store"],
        role: "memory store resource",
      });
  });
  return refs;
}

/** A channel references its agent and identity only in `fixed` mode; `pairing` ignores them. */
function channelReferences(channel: ChannelDecl, config: Config): Reference[] {
  if ((channel.mode ?? "fixed") !== "fixed") return [];
  const refs: Reference[] = [];
  if (channel.agent !== undefined)
    refs.push({ kind: "agents", name: channel.agent, path: ["agent"], role: "agent" });
  if (channel.identity !== undefined) {
    refs.push({ kind: "identities", name: channel.identity, path: ["identity"], role: "identity" });
  } else if (config.defaults?.identity !== undefined) {
    refs.push({ kind: "identities", name: config.defaults.identity, path: [], role: "default identity" });
  }
  return refs;
}

export function referencesOf(kind: Kind, spec: unknown, config: Config): Reference[] {
  switch (kind) {
    case "agents":
      return agentReferences(spec as AgentDecl);
    case "deployments":
      return deploymentReferences(spec as DeploymentDecl);
    case "channels":
      return channelReferences(spec as ChannelDecl, config);
    default:
      return [];
  }
}
