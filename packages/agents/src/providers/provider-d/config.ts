import { z } from "zod";
import { strict } from "../../config/schema/helpers.js";

/** `providers.provider_d`: an API key. */
export const providerDConfig = strict({
  api_key: z.string().min(1).describe("API key (write it as `${VAR}`)"),
  base_url: z
    .url()
    .optional()
    .describe("extension: overrides the public API endpoint (e.g. a local simulator)"),
}).describe("provider_d");
