// provider_d adapter: every kind the provider supports, over the shared Managed-Agents dialect;
// deployments are emulated locally (the provider has none).

import { probeByListingAgents } from "../common/probe.js";
import { agentHandler } from "../managed-dialect/handler-agent.js";
import { environmentHandler } from "../managed-dialect/handler-environment.js";
import { fileHandler } from "../managed-dialect/handler-file.js";
import { memoryStoreHandler } from "../managed-dialect/handler-memory.js";
import { vaultHandler } from "../managed-dialect/handler-vault.js";
import type { ProviderAdapter } from "../types.js";
import { connectProviderD } from "./client.js";
import { providerDDeploymentHandler } from "./handler-deployment.js";
import { providerDSkillHandler } from "./handler-skill.js";
import { providerDEnvironmentNaming, providerDProfile } from "./profile.js";
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
