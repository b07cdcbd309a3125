// Capability facts several providers state alike, written once: what a provider without
// provider_b's own kinds refuses, and the cloud-only environments of every provider but provider_b.
// Each provider's capabilities.ts still lists its facts; these are the lines they would repeat.

import { type ProviderCapabilities, SUPPORTED, type Support, unsupported } from "../../model/capabilities.js";
import { KINDS, type Kind } from "../../model/kinds.js";

/**
 * Every kind supported but provider_b's own (tunnels, identities, channels), refused with the
 * alternative; `differences` are the provider's other refusals. In the order agents.yaml lists them.
 */
export function kindsBesideProviderB(
  differences: Partial<Record<Kind, Support>> = {},
): Record<Kind, Support> {
  const refused: Partial<Record<Kind, Support>> = {
    tunnels: unsupported("BYOC tunnels exist only on provider_b; use a cloud environment"),
    identities: unsupported("identities exist only on provider_b"),
    channels: unsupported("channels exist only on provider_b"),
    ...differences,
  };
  return Object.fromEntries(KINDS.map((kind) => [kind, refused[kind] ?? SUPPORTED])) as Record<Kind, Support>;
}

/** Cloud environments only, with packages installed from `config.packages`. */
export function cloudEnvironments(limitedNetworking: Support): ProviderCapabilities["environments"] {
  return {
    packageManagers: ["apt", "pip", "npm", "cargo", "gem", "go"],
    setupScript: unsupported("install what you need through `config.packages`"),
    selfHosted: unsupported("use `type: cloud`; self-hosted (BYOC) environments exist only on provider_b"),
    selfHostedConfigIsMinimal: false,
    limitedNetworking,
  };
}

/** The channel facts of a provider without channels. */
export const NO_CHANNELS: ProviderCapabilities["channels"] = {
  fixedModeRequiresForwardAgent: false,
  types: {},
};
