// provider_c adapter: every kind the provider supports, over the shared Managed-Agents dialect.

import { probeByListingAgents } from "../common/probe.js";
import { agentHandler } from "../managed-dialect/handler-agent.js";
import { environmentHandler } from "../managed-dialect/handler-environment.js";
import { fileHandler } from "../managed-dialect/handler-file.js";
import { memoryStoreHandler } from "../managed-dialect/handler-memory.js";
import { vaultHandler } from "../managed-dialect/handler-vault.js";
import type { ProviderAdapter } from "../types.js";
import { connectProviderC } from "./client.js";
import { providerCDeploymentHandler } from "./handler-deployment.js";
import { providerCSkillHandler } from "./handler-skill.js";
import { providerCEnvironmentNaming, providerCProfile } from "./profile.js";

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
