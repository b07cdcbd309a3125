// provider_a as agents.yaml sees it: its block's schema, its capabilities and the `agents init`
// starter, without the adapter's wire code (definition.ts adds it), so that loading and checking
// a file does not load the engine's provider code.

import { z } from "zod";
import { coded, strict } from "../../model/schema-helpers.js";
import { allowInsecureHttpField } from "../endpoint.js";
import type { ProviderSpec } from "../types.js";
import { providerACapabilities } from "./capabilities.js";

/** `providers.provider_a`: a workspace-scoped API key. */
const providerAConfig = strict({
  api_key: z.string().min(1).describe("API key (write it as `${VAR}`)"),
  workspace_id: z
    .string()
    .regex(
      /^llm-[A-Za-z0-9_-]*$/,
      coded(
        "AGENTS1035",
        "`workspace_id` must be `llm-` then letters, digits, `-` or `_` (it is a host label)",
      ),
    )
    .describe("workspace id: `llm-` then letters, digits, `-` or `_`"),
  base_url: z.url().optional().describe("overrides the endpoint otherwise derived from `workspace_id`"),
  allow_insecure_http: allowInsecureHttpField,
}).describe("provider_a: workspace-based provider (no memory stores)");

export const providerASpec = {
  name: "provider_a",
  config: providerAConfig,
  capabilities: providerACapabilities,
  starter: {
    block: ["api_key: ${PROVIDER_A_API_KEY}", "workspace_id: ${PROVIDER_A_WORKSPACE_ID}"],
    env: ["PROVIDER_A_API_KEY=replace-me", "PROVIDER_A_WORKSPACE_ID=llm-replace-me"],
    model: "qwen-plus",
  },
} as const satisfies ProviderSpec;
