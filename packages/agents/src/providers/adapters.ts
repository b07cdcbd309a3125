// Every provider adapter in this build. The core reaches providers only through this list.
import type { ProviderAdapter } from "./types.js";

export const ALL_ADAPTERS: ProviderAdapter[] = [];
