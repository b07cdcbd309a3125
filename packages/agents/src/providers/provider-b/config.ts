import { z } from "zod";
import { strict } from "../../config/schema/helpers.js";

/** `providers.provider_b`: a personal access token and an optional gateway. */
export const providerBConfig = strict({
  api_key: z.string().min(1).describe("personal access token (write it as `${VAR}`)"),
  gateway: z
    .url()
    .optional()
    .describe("cloud gateway base URL; default is the provider's public cloud gateway"),
}).describe("provider_b: BYOC tunnels, Forward delivery, identities and channels");
