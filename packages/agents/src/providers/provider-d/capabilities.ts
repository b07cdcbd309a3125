import { type ProviderCapabilities, SUPPORTED, unsupported } from "../../model/capabilities.js";
import { dialectCapabilities } from "../managed-dialect/capabilities.js";

/** provider_d facts: see docs/wire/provider-d.md §4. */
export const providerDCapabilities: ProviderCapabilities = dialectCapabilities({
  name: "provider_d",
  files: SUPPORTED,
  mountRoot: "/mnt",
  sessionResources: unsupported("provider_d sessions take no git repositories; upload content as `files`"),
  // Deployments are emulated by a session at run time: nothing runs a cron schedule remotely.
  deployments: {
    tunnel: "unsupported",
    schedule: "not_enforced",
    fileMountPathRequired: false,
    outcomeDescriptionRequired: false,
  },
  metadataKinds: ["agents", "environments", "vaults", "memory_stores"],
});
