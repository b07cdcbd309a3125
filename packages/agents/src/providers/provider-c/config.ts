import { z } from "zod";
import { strict } from "../../config/schema/helpers.js";

/** `providers.provider_c`: an API key and an optional beta header value. */
export const providerCConfig = strict({
  api_key: z.string().min(1).describe("API key (write it as `${VAR}`)"),
  beta: z.string().optional().describe("value of the provider's beta-feature request header"),
  base_url: z
    .url()
    .optional()
    .describe("extension: overrides the public API endpoint (e.g. a local simulator)"),
}).describe("provider_c: beta memory stores");
