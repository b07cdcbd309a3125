// Every provider adapter in this build. The core reaches providers only through this list.
import { providerC } from "./provider-c/index.js";
import { providerD } from "./provider-d/index.js";
import type { ProviderAdapter } from "./types.js";

export const ALL_ADAPTERS: ProviderAdapter[] = [providerC, providerD];
