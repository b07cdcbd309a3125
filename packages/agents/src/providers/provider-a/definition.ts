// The provider_a adapter: AgentStudio managed agents. Kinds it cannot hold (memory stores,
// identities, channels, tunnels) are absent; capabilities.ts (config helper) explains why.

import { probeByListingAgents } from "../common/probe.js";
import type { ProviderAdapter, ProviderDefinition } from "../types.js";
import { connectProviderA } from "./client.js";
import { agentHandler } from "./handlers/agents.js";
import { createDeploymentHandler } from "./handlers/deployments.js";
import { environmentHandler } from "./handlers/environments.js";
import { createFileHandler } from "./handlers/files.js";
import { DEFAULT_PROVIDER_A_OPTIONS, type ProviderAOptions } from "./handlers/options.js";
import { createSkillHandler } from "./handlers/skills.js";
import { vaultHandler } from "./handlers/vaults.js";
import { providerARefusals } from "./refusals.js";
import { providerASpec } from "./spec.js";

export function createProviderA(overrides: Partial<ProviderAOptions> = {}): ProviderAdapter {
  const opts = { ...DEFAULT_PROVIDER_A_OPTIONS, ...overrides };
  return {
    name: "provider_a",
    connect: (block, http, baseUrlOverride) => ({ http: connectProviderA(block, http, baseUrlOverride) }),
    probe: probeByListingAgents,
    kinds: {
      environments: environmentHandler,
      vaults: vaultHandler,
      files: createFileHandler(opts),
      skills: createSkillHandler(opts),
      agents: agentHandler,
      deployments: createDeploymentHandler(opts),
    },
  };
}

export const providerA = createProviderA();
export type { ProviderAOptions };

/** provider_a, whole: the block schema, capabilities, the `agents init` starter and the adapter. */
export const providerADefinition = {
  ...providerASpec,
  adapter: providerA,
  applyRefusals: providerARefusals,
} as const satisfies ProviderDefinition;
