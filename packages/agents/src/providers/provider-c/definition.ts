// provider_c adapter: every kind the provider supports, over the shared Managed-Agents dialect.

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
import { providerCCapabilities } from "./capabilities.js";
import { connectProviderC } from "./client.js";
import { providerCDeploymentHandler } from "./handlers/deployments.js";
import { providerCSkillHandler } from "./handlers/skills.js";
import { providerCEnvironmentNaming, providerCProfile } from "./profile.js";
import { providerCRefusals } from "./refusals.js";

/** `providers.provider_c`: an API key and an optional beta header value. */
const providerCConfig = strict({
  api_key: z.string().min(1).describe("API key (write it as `${VAR}`)"),
  beta: z.string().optional().describe("value of the provider's beta-feature request header"),
  base_url: z
    .url()
    .optional()
    .describe("extension: overrides the public API endpoint (e.g. a local simulator)"),
  allow_insecure_http: allowInsecureHttpField,
}).describe("provider_c: beta memory stores");

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
  name: "provider_c",
  config: providerCConfig,
  capabilities: providerCCapabilities,
  starter: {
    block: ["api_key: ${PROVIDER_C_API_KEY}"],
    env: ["PROVIDER_C_API_KEY=replace-me"],
    model: "claude-sonnet-4-5",
  },
  adapter: providerC,
  // Nothing these handlers refuse at apply is left for validate to foresee.
  applyRefusals: providerCRefusals,
} as const satisfies ProviderDefinition;
