import { type ProviderCapabilities, SUPPORTED, unsupported } from "../../model/capabilities.js";
import { METADATA_LIMITS } from "../managed-dialect/ownership.js";

/** provider_d facts: see docs/wire/provider-d.md §4. */
export const providerDCapabilities: ProviderCapabilities = {
  name: "provider_d",
  kinds: {
    environments: SUPPORTED,
    tunnels: unsupported("BYOC tunnels exist only on provider_b; use a cloud environment"),
    vaults: SUPPORTED,
    memory_stores: SUPPORTED,
    skills: SUPPORTED,
    files: SUPPORTED,
    identities: unsupported("identities exist only on provider_b"),
    agents: SUPPORTED,
    channels: unsupported("channels exist only on provider_b"),
    deployments: SUPPORTED,
  },
  mountRoot: "/mnt",
  environments: {
    packageManagers: ["apt", "pip", "npm", "cargo", "gem", "go"],
    setupScript: unsupported("install what you need through `config.packages`"),
    selfHosted: unsupported("use `type: cloud`; self-hosted (BYOC) environments exist only on provider_b"),
    selfHostedConfigIsMinimal: false,
    limitedNetworking: SUPPORTED,
  },
  credentialTypes: { static_bearer: SUPPORTED, environment_variable: SUPPORTED },
  credentialProtocol: unsupported(
    "provider_d's static_bearer credential is `{type, token, mcp_server_url}` with no transport field (the server URL decides); remove `protocol` to silence this",
  ),
  agents: {
    forwardEnvironmentNetworking: SUPPORTED,
    builtinTools: ["bash", "read", "write", "edit", "glob", "grep", "web_fetch", "web_search"],
    askPermission: SUPPORTED,
    mcpServerForms: ["url"],
    environmentVariables: unsupported("put values in a vault `environment_variable` credential"),
    forwardDelivery: unsupported("Forward delivery exists only on provider_b"),
    sessionResources: unsupported("provider_d sessions take no git repositories; upload content as `files`"),
    forwardAcceptsExternalMembers: true,
  },
  // Deployments are emulated by a session at run time: nothing runs a cron schedule remotely.
  deployments: {
    tunnel: "unsupported",
    schedule: "not_enforced",
    fileMountPathRequired: false,
    outcomeDescriptionRequired: false,
  },
  memoryKeyLimits: { segments: 20, bytes: 1024 },
  metadataLimits: { ...METADATA_LIMITS, kinds: ["agents", "environments", "vaults", "memory_stores"] },
  skills: { frontmatterNameRequired: true },
  channels: { fixedModeRequiresForwardAgent: false, types: {} },
};
