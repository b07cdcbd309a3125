// The one table of providers: each entry is a provider's whole definition, its spec (specs.ts:
// block schema, capabilities, starter, which the configuration reads without loading any wire
// code) with its adapter, which the engine drives.
import { isProviderName, PROVIDER_NAMES, type ProviderName } from "../model/provider-names.js";
import { providerADefinition } from "./provider-a/definition.js";
import { providerBDefinition } from "./provider-b/definition.js";
import { providerCDefinition } from "./provider-c/definition.js";
import { providerDDefinition } from "./provider-d/definition.js";
import type { ProviderAdapter, ProviderDefinition } from "./types.js";

export const PROVIDERS = {
  provider_a: providerADefinition,
  provider_b: providerBDefinition,
  provider_c: providerCDefinition,
  provider_d: providerDDefinition,
} as const satisfies { [K in ProviderName]: ProviderDefinition & { name: K } };

export { isProviderName, PROVIDER_NAMES, type ProviderName };

/** Every provider adapter in this build, in catalog order: the engine's default. */
export const ALL_ADAPTERS: ProviderAdapter[] = PROVIDER_NAMES.map((name) => PROVIDERS[name].adapter);

export { capabilitiesOf } from "./specs.js";
