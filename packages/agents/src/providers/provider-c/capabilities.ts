import { type ProviderCapabilities, SUPPORTED, unsupported } from "../../model/capabilities.js";
import { dialectCapabilities } from "../managed-dialect/capabilities.js";

/** provider_c facts: see docs/wire/provider-c.md §4. */
export const providerCCapabilities: ProviderCapabilities = dialectCapabilities({
  name: "provider_c",
  files: unsupported(
    "top-level files are uploaded only to provider_a and provider_d; mount content with a `git_repository` session resource",
  ),
  mountRoot: "/workspace",
  repositoryMountRoot: "/workspace",
  sessionResources: SUPPORTED,
  deployments: {
    tunnel: "unsupported",
    schedule: "native",
    fileMountPathRequired: false,
    outcomeDescriptionRequired: true,
    environmentRequired: "or_agent",
    initialEventsRequired: true,
  },
  metadataKinds: ["agents", "environments", "vaults", "memory_stores", "deployments"],
});
