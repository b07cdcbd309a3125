// The provider_b adapter: Managed API (agents, deployments, sessions) and Forward API
// (Templates, Identities, Channels) over one token; shared kinds live on either domain.

import { DeclarationError } from "../common/errors.js";
import { probeByListingAgents } from "../common/probe.js";
import type { KindHandler, ProviderAdapter, ProviderDefinition } from "../types.js";
import { connectProviderB } from "./client.js";
import { deriveProviderB } from "./derive.js";
import { agentHandler } from "./handlers/agents.js";
import { channelHandler } from "./handlers/channels.js";
import { DEFAULT_STORE_CLEANUP, defaultStoreCleanup } from "./handlers/default-store.js";
import { deploymentHandler } from "./handlers/deployments.js";
import { environmentHandler } from "./handlers/environments.js";
import { identityHandler } from "./handlers/identities.js";
import { createMemoryStoreHandler } from "./handlers/memory-stores.js";
import { DEFAULT_PROVIDER_B_OPTIONS, type ProviderBOptions } from "./handlers/shared.js";
import { skillHandler } from "./handlers/skills.js";
import { vaultHandler } from "./handlers/vaults.js";
import { providerBRefusals } from "./refusals.js";
import { providerBSpec } from "./spec.js";

/** Tunnels are references to existing BYOC tunnels: never created, updated or deleted. */
const tunnelHandler: KindHandler = {
  localOnly: true,
  async create(_ctx, spec) {
    const id = spec.tunnel_id;
    if (typeof id !== "string" || !id.startsWith("tnl_"))
      throw new DeclarationError(
        "provider_b.tunnel_id_without_prefix",
        "a tunnel needs tunnel_id (prefix tnl_)",
      );
    return { id, spec: {} };
  },
  async read(_ctx, id) {
    return { id, spec: {} };
  },
  async remove() {},
};

export function createProviderB(overrides: Partial<ProviderBOptions> = {}): ProviderAdapter {
  const opts = { ...DEFAULT_PROVIDER_B_OPTIONS, ...overrides };
  return {
    name: "provider_b",
    connect: (block, http, baseUrlOverride) => {
      const clients = connectProviderB(block, http, baseUrlOverride);
      return { http: clients.managed, apis: { forward: clients.forward } };
    },
    probe: probeByListingAgents,
    kinds: {
      environments: environmentHandler,
      tunnels: tunnelHandler,
      vaults: vaultHandler,
      memory_stores: createMemoryStoreHandler(opts),
      skills: skillHandler,
      identities: identityHandler,
      agents: agentHandler,
      channels: channelHandler,
      deployments: deploymentHandler,
    },
    derive: (config, kind, name) =>
      deriveProviderB(config, kind, name) as Record<string, unknown> | undefined,
    deferred: { [DEFAULT_STORE_CLEANUP]: defaultStoreCleanup(opts) },
  };
}

const providerB = createProviderB();

export type { ProviderBOptions };

/** provider_b, whole: the block schema, capabilities, the `agents init` starter and the adapter. */
export const providerBDefinition = {
  ...providerBSpec,
  adapter: providerB,
  applyRefusals: providerBRefusals,
} as const satisfies ProviderDefinition;
