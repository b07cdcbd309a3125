// provider_b as agents.yaml sees it: its block's schema, its capabilities and the `agents init`
// starter, without the adapter's wire code (definition.ts adds it), so that loading and checking
// a file does not load the engine's provider code.

import { z } from "zod";
import { strict } from "../../model/schema-helpers.js";
import { allowInsecureHttpField } from "../endpoint.js";
import type { ProviderSpec } from "../types.js";
import { providerBCapabilities } from "./capabilities.js";

/** `providers.provider_b`: a personal access token and an optional gateway. */
const providerBConfig = strict({
  api_key: z.string().min(1).describe("personal access token (write it as `${VAR}`)"),
  gateway: z
    .url()
    .optional()
    .describe("cloud gateway base URL; default is the provider's public cloud gateway"),
  allow_insecure_http: allowInsecureHttpField,
}).describe("provider_b: BYOC tunnels, Forward delivery, identities and channels");

export const providerBSpec = {
  name: "provider_b",
  config: providerBConfig,
  capabilities: providerBCapabilities,
  starter: {
    block: ["api_key: ${PROVIDER_B_API_KEY}"],
    env: ["PROVIDER_B_API_KEY=replace-me"],
    model: "auto",
  },
} as const satisfies ProviderSpec;
