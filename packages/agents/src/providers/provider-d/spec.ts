// provider_d as agents.yaml sees it: its block's schema, its capabilities and the `agents init`
// starter, without the adapter's wire code (definition.ts adds it), so that loading and checking
// a file does not load the engine's provider code.

import { z } from "zod";
import { strict } from "../../model/schema-helpers.js";
import { allowInsecureHttpField } from "../endpoint.js";
import type { ProviderSpec } from "../types.js";
import { providerDCapabilities } from "./capabilities.js";

/** `providers.provider_d`: an API key. */
const providerDConfig = strict({
  api_key: z.string().min(1).describe("API key (write it as `${VAR}`)"),
  base_url: z
    .url()
    .optional()
    .describe("extension: overrides the public API endpoint (e.g. a local simulator)"),
  allow_insecure_http: allowInsecureHttpField,
}).describe("provider_d");

export const providerDSpec = {
  name: "provider_d",
  config: providerDConfig,
  capabilities: providerDCapabilities,
  starter: {
    block: ["api_key: ${PROVIDER_D_API_KEY}"],
    env: ["PROVIDER_D_API_KEY=replace-me"],
    model: "doubao-seed-1-6",
  },
} as const satisfies ProviderSpec;
