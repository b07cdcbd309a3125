// provider_c adapter: every kind the provider supports, over the shared Managed-Agents dialect.

import { probeByListingAgents } from "../common/probe.js";
import { agentHandler } from "../managed-dialect/handlers/agents.js";
import { environmentHandler } from "../managed-dialect/handlers/environments.js";
import { fileHandler } from "../managed-dialect/handlers/files.js";
import { memoryStoreHandler } from "../managed-dialect/handlers/memory-stores.js";
import { vaultHandler } from "../managed-dialect/handlers/vaults.js";
import type { ProviderAdapter, ProviderDefinition } from "../types.js";
import { connectProviderC } from "./client.js";
import { providerCDeploymentHandler } from "./handlers/deployments.js";
import { providerCSkillHandler } from "./handlers/skills.js";
import { providerCEnvironmentNaming, providerCProfile } from "./profile.js";
import { providerCRefusals } from "./refusals.js";
import { providerCSpec } from "./spec.js";

export const providerC: ProviderAdapter = {
  name: "provider_c",
  connect: connectProviderC,
  probe: probeByListingAgents,
  kinds: {
    environments: environmentHandler(providerCProfile, providerCEnvironmentNaming),
    vaults: vaultHandler(providerCProfile),
    memory_stores: memoryStoreHandler(providerCProfile),
    skills: providerCSkillHandler,
    files: fileHandler({ idKeys: [] }),
    agents: agentHandler(providerCProfile),
    deployments: providerCDeploymentHandler,
  },
};

/** provider_c, whole: the block schema, capabilities, the `agents init` starter and the adapter. */
export const providerCDefinition = {
  ...providerCSpec,
  adapter: providerC,
  // Nothing these handlers refuse at apply is left for validate to foresee.
  applyRefusals: providerCRefusals,
} as const satisfies ProviderDefinition;
