// provider_d adapter: every kind the provider supports, over the shared Managed-Agents dialect;
// deployments are emulated locally (the provider has none).

import { probeByListingAgents } from "../common/probe.js";
import { agentHandler } from "../managed-dialect/handlers/agents.js";
import { environmentHandler } from "../managed-dialect/handlers/environments.js";
import { fileHandler } from "../managed-dialect/handlers/files.js";
import { memoryStoreHandler } from "../managed-dialect/handlers/memory-stores.js";
import { vaultHandler } from "../managed-dialect/handlers/vaults.js";
import type { ProviderAdapter, ProviderDefinition } from "../types.js";
import { connectProviderD } from "./client.js";
import { providerDDeploymentHandler } from "./handlers/deployments.js";
import { providerDSkillHandler } from "./handlers/skills.js";
import { providerDEnvironmentNaming, providerDProfile } from "./profile.js";
import { providerDRefusals } from "./refusals.js";
import { providerDSpec } from "./spec.js";
import { DEFAULT_FILE_PURPOSE } from "./wire-decisions.js";

export const providerD: ProviderAdapter = {
  name: "provider_d",
  connect: connectProviderD,
  probe: probeByListingAgents,
  kinds: {
    environments: environmentHandler(providerDProfile, providerDEnvironmentNaming),
    vaults: vaultHandler(providerDProfile),
    memory_stores: memoryStoreHandler(providerDProfile),
    skills: providerDSkillHandler,
    files: fileHandler({
      purpose: { field: "purpose", fallback: DEFAULT_FILE_PURPOSE },
      idKeys: ["file_id"],
    }),
    agents: agentHandler(providerDProfile),
    deployments: providerDDeploymentHandler,
  },
};

/** provider_d, whole: the block schema, capabilities, the `agents init` starter and the adapter. */
export const providerDDefinition = {
  ...providerDSpec,
  adapter: providerD,
  // Nothing these handlers refuse at apply is left for validate to foresee.
  applyRefusals: providerDRefusals,
} as const satisfies ProviderDefinition;
