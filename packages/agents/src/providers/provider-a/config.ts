import { z } from "zod";
import { coded, strict } from "../../config/schema/helpers.js";

/** `providers.provider_a`: a workspace-scoped API key. */
export const providerAConfig = strict({
  api_key: z.string().min(1).describe("API key (write it as `${VAR}`)"),
  workspace_id: z
    .string()
    .regex(/^llm-/, coded("AGENTS1035", "`workspace_id` must begin with `llm-`"))
    .describe("workspace id, begins with `llm-`"),
  base_url: z.url().optional().describe("overrides the endpoint otherwise derived from `workspace_id`"),
}).describe("provider_a: workspace-based provider (no memory stores)");
