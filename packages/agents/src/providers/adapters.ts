// Every provider adapter in this build. The core reaches providers only through this list.
import { providerA } from "./provider-a/index.js";
import { providerB } from "./provider-b/index.js";
import { providerC } from "./provider-c/index.js";
import { providerD } from "./provider-d/index.js";
import type { ProviderAdapter } from "./types.js";

export const ALL_ADAPTERS: ProviderAdapter[] = [providerA, providerB, providerC, providerD];
