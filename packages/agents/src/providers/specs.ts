// The providers as agents.yaml sees them (each folder's spec.ts: block schema, capabilities,
// `agents init` starter), without the adapters: the configuration loader and its rules read these,
// so loading and checking a file does not load the engine's wire code. The catalog (catalog.ts)
// adds each provider's adapter.
import type { ProviderCapabilities } from "../model/capabilities.js";
import { isProviderName, PROVIDER_NAMES, type ProviderName } from "../model/provider-names.js";
import { providerASpec } from "./provider-a/spec.js";
import { providerBSpec } from "./provider-b/spec.js";
import { providerCSpec } from "./provider-c/spec.js";
import { providerDSpec } from "./provider-d/spec.js";
import type { ProviderSpec } from "./types.js";

export const PROVIDER_SPECS = {
  provider_a: providerASpec,
  provider_b: providerBSpec,
  provider_c: providerCSpec,
  provider_d: providerDSpec,
} as const satisfies { [K in ProviderName]: ProviderSpec & { name: K } };

export { isProviderName, PROVIDER_NAMES, type ProviderName };

export function capabilitiesOf(name: string): ProviderCapabilities | undefined {
  return isProviderName(name) ? PROVIDER_SPECS[name].capabilities : undefined;
}
