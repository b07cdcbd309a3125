import { type ProviderCapabilities, SUPPORTED, unsupported } from "../../model/capabilities.js";
import { METADATA_LIMITS } from "../managed-dialect/ownership.js";

/** provider_c facts: see docs/wire/provider-c.md §4. */
export const providerCCapabilities: ProviderCapabilities = {
  name: "provider_c",
  kinds: {
    environments: SUPPORTED,
    tunnels: unsupported("BYOC tunnels exist only on provider_b; use a cloud environment"),
    vaults: SUPPORTED,
    memory_stores: SUPPORTED,
    skills: SUPPORTED,
    files: unsupported(
      "top-level files are uploaded only to provider_a and provider_d; mount content with a `git_repository` session resource",
    ),
    identities: unsupported("identities exist only on provider_b"),
    agents: SUPPORTED,
    channels: unsupported("channels exist only on provider_b"),
    deployments: SUPPORTED,
  },
  mountRoot: "/workspace",
  repositoryMountRoot: "/workspace",
  environments: {
    packageManagers: ["apt", "pip", "npm", "cargo", "gem", "go"],
    setupScript: unsupported("install what you need through `config.packages`"),
    selfHosted: unsupported("use `type: cloud`; self-hosted (BYOC) environments exist only on provider_b"),
    selfHostedConfigIsMinimal: false,
    limitedNetworking: SUPPORTED,
  },
  credentialTypes: { static_bearer: SUPPORTED, environment_variable: SUPPORTED },
  credentialProtocol: unsupported(
    "provider_c's static_bearer credential is `{type, token, mcp_server_url}` with no transport field (the server URL decides); remove `protocol` to silence this",
  ),
  agents: {
    forwardEnvironmentNetworking: SUPPORTED,
    builtinTools: ["bash", "read", "write", "edit", "glob", "grep", "web_fetch", "web_search"],
    askPermission: SUPPORTED,
    mcpServerForms: ["url"],
    environmentVariables: unsupported("put values in a vault `environment_variable` credential"),
    forwardDelivery: unsupported("Forward delivery exists only on provider_b"),
    sessionResources: SUPPORTED,
    forwardAcceptsExternalMembers: true,
  },
  deployments: {
    tunnel: "unsupported",
    schedule: "native",
    fileMountPathRequired: false,
    outcomeDescriptionRequired: true,
    environmentRequired: "or_agent",
    initialEventsRequired: true,
  },
  memoryKeyLimits: { segments: 20, bytes: 1024 },
  metadataLimits: {
    ...METADATA_LIMITS,
    kinds: ["agents", "environments", "vaults", "memory_stores", "deployments"],
  },
  skills: { frontmatterNameRequired: true },
  channels: { fixedModeRequiresForwardAgent: false, types: {} },
};
