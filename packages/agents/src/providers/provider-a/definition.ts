// The provider_a adapter: AgentStudio managed agents. Kinds it cannot hold (memory stores,
// identities, channels, tunnels) are absent; capabilities.ts (config helper) explains why.

import { z } from "zod";
import { coded, strict } from "../../model/schema-helpers.js";
import { probeByListingAgents } from "../common/probe.js";
import { allowInsecureHttpField } from "../endpoint.js";
import type { ProviderAdapter, ProviderDefinition } from "../types.js";
import { providerACapabilities } from "./capabilities.js";
import { connectProviderA } from "./client.js";
import { agentHandler } from "./handlers/agents.js";
import { createDeploymentHandler } from "./handlers/deployments.js";
import { environmentHandler } from "./handlers/environments.js";
import { createFileHandler } from "./handlers/files.js";
import { DEFAULT_PROVIDER_A_OPTIONS, type ProviderAOptions } from "./handlers/options.js";
import { createSkillHandler } from "./handlers/skills.js";
import { vaultHandler } from "./handlers/vaults.js";
import { providerARefusals } from "./refusals.js";

/** `providers.provider_a`: a workspace-scoped API key. */
const providerAConfig = strict({
  api_key: z.string().min(1).describe("API key (write it as `${VAR}`)"),
  workspace_id: z
    .string()
    .regex(
      /^llm-[A-Za-z0-9_-]*$/,
      coded(
        "AGENTS1035",
        "`workspace_id` must be `llm-` then letters, digits, `-` or `_` (it is a host label)",
      ),
    )
    .describe("workspace id: `llm-` then letters, digits, `-` or `_`"),
  base_url: z.url().optional().describe("overrides the endpoint otherwise derived from `workspace_id`"),
  allow_insecure_http: allowInsecureHttpField,
}).describe("provider_a: workspace-based provider (no memory stores)");

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
  name: "provider_a",
  config: providerAConfig,
  capabilities: providerACapabilities,
  starter: {
    block: ["api_key: ${PROVIDER_A_API_KEY}", "workspace_id: ${PROVIDER_A_WORKSPACE_ID}"],
    env: ["PROVIDER_A_API_KEY=replace-me", "PROVIDER_A_WORKSPACE_ID=llm-replace-me"],
    model: "qwen-plus",
  },
  adapter: providerA,
  applyRefusals: providerARefusals,
} as const satisfies ProviderDefinition;
