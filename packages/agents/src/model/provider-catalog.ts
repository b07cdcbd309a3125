import type { z } from "zod";
import { providerACapabilities } from "../providers/provider-a/capabilities.js";
import { providerAConfig } from "../providers/provider-a/config.js";
import { providerBCapabilities } from "../providers/provider-b/capabilities.js";
import { providerBConfig } from "../providers/provider-b/config.js";
import { providerCCapabilities } from "../providers/provider-c/capabilities.js";
import { providerCConfig } from "../providers/provider-c/config.js";
import { providerDCapabilities } from "../providers/provider-d/capabilities.js";
import { providerDConfig } from "../providers/provider-d/config.js";
import type { ProviderCapabilities } from "./capabilities.js";

export interface ProviderEntry {
  config: z.ZodType;
  capabilities: ProviderCapabilities;
}

/** The providers this build knows, by the key used under `providers:`. */
export const PROVIDERS = {
  provider_a: { config: providerAConfig, capabilities: providerACapabilities },
  provider_b: { config: providerBConfig, capabilities: providerBCapabilities },
  provider_c: { config: providerCConfig, capabilities: providerCCapabilities },
  provider_d: { config: providerDConfig, capabilities: providerDCapabilities },
} as const satisfies Record<string, ProviderEntry>;

export type ProviderName = keyof typeof PROVIDERS;
export const PROVIDER_NAMES = Object.keys(PROVIDERS) as ProviderName[];

export function isProviderName(name: string): name is ProviderName {
  return Object.hasOwn(PROVIDERS, name);
}

export function capabilitiesOf(name: string): ProviderCapabilities | undefined {
  return isProviderName(name) ? PROVIDERS[name].capabilities : undefined;
}
