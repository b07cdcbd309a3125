// provider_d adapter: every kind the provider supports, over the shared Managed-Agents dialect;
// deployments are emulated locally (the provider has none).

import { z } from "zod";
import { strict } from "../../model/schema-helpers.js";
import { probeByListingAgents } from "../common/probe.js";
import { allowInsecureHttpField } from "../endpoint.js";
import { agentHandler } from "../managed-dialect/handlers/agents.js";
import { environmentHandler } from "../managed-dialect/handlers/environments.js";
import { fileHandler } from "../managed-dialect/handlers/files.js";
import { memoryStoreHandler } from "../managed-dialect/handlers/memory-stores.js";
import { vaultHandler } from "../managed-dialect/handlers/vaults.js";
import type { ProviderAdapter, ProviderDefinition } from "../types.js";
import { providerDCapabilities } from "./capabilities.js";
import { connectProviderD } from "./client.js";
import { providerDDeploymentHandler } from "./handlers/deployments.js";
import { providerDSkillHandler } from "./handlers/skills.js";
import { providerDEnvironmentNaming, providerDProfile } from "./profile.js";
import { providerDRefusals } from "./refusals.js";
import { DEFAULT_FILE_PURPOSE } from "./wire-decisions.js";

/** `providers.provider_d`: an API key. */
const providerDConfig = strict({
  api_key: z.string().min(1).describe("API key (write it as `${VAR}`)"),
  base_url: z
    .url()
    .optional()
    .describe("extension: overrides the public API endpoint (e.g. a local simulator)"),
  allow_insecure_http: allowInsecureHttpField,
}).describe("provider_d");

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
  name: "provider_d",
  config: providerDConfig,
  capabilities: providerDCapabilities,
  starter: {
    block: ["api_key: ${PROVIDER_D_API_KEY}"],
    env: ["PROVIDER_D_API_KEY=replace-me"],
    model: "doubao-seed-1-6",
  },
  adapter: providerD,
  // Nothing these handlers refuse at apply is left for validate to foresee.
  applyRefusals: providerDRefusals,
} as const satisfies ProviderDefinition;
