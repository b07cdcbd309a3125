// provider_c as agents.yaml sees it: its block's schema, its capabilities and the `agents init`
// starter, without the adapter's wire code (definition.ts adds it), so that loading and checking
// a file does not load the engine's provider code.

import { z } from "zod";
import { strict } from "../../model/schema-helpers.js";
import { allowInsecureHttpField } from "../endpoint.js";
import type { ProviderSpec } from "../types.js";
import { providerCCapabilities } from "./capabilities.js";

/** `providers.provider_c`: an API key and an optional beta header value. */
const providerCConfig = strict({
  api_key: z.string().min(1).describe("API key (write it as `${VAR}`)"),
  beta: z.string().optional().describe("value of the provider's beta-feature request header"),
  base_url: z
    .url()
    .optional()
    .describe("extension: overrides the public API endpoint (e.g. a local simulator)"),
  allow_insecure_http: allowInsecureHttpField,
}).describe("provider_c: beta memory stores");

export const providerCSpec = {
  name: "provider_c",
  config: providerCConfig,
  capabilities: providerCCapabilities,
  starter: {
    block: ["api_key: ${PROVIDER_C_API_KEY}"],
    env: ["PROVIDER_C_API_KEY=replace-me"],
    model: "claude-sonnet-4-5",
  },
} as const satisfies ProviderSpec;
