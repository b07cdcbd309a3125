import { type ProviderCapabilities, SUPPORTED, unsupported } from "../../model/capabilities.js";
import { cloudEnvironments, kindsBesideProviderB, NO_CHANNELS } from "../common/capability-facts.js";

/**
 * provider_a facts: see docs/wire/provider-a.md §4 (capabilities) and docs/wire/provider-a.md §5 (mount
 * root).
 */
export const providerACapabilities: ProviderCapabilities = {
  name: "provider_a",
  kinds: kindsBesideProviderB({
    memory_stores: unsupported(
      "provider_a has no memory stores; keep durable context in instructions or files, or target provider_b, provider_c or provider_d",
    ),
  }),
  mountRoot: "/mnt",
  environments: cloudEnvironments(
    unsupported("provider_a environments accept only `unrestricted` networking"),
  ),
  credentialTypes: {
    static_bearer: unsupported(
      "the provider_a API rejects static_bearer credentials; use an `environment_variable` credential",
    ),
    environment_variable: SUPPORTED,
  },
  credentialProtocol: unsupported("provider_a rejects static_bearer credentials altogether"),
  agents: {
    forwardEnvironmentNetworking: SUPPORTED,
    builtinTools: ["bash", "read", "write", "edit", "glob", "grep", "download_file"],
    askPermission: unsupported("provider_a cannot enforce `ask`; use `allow` or leave the tool out"),
    mcpServerForms: ["official"],
    environmentVariables: unsupported("put values in a vault `environment_variable` credential"),
    forwardDelivery: unsupported("Forward delivery exists only on provider_b"),
    sessionResources: unsupported("mount files with the agent's `files` entries instead"),
    forwardAcceptsExternalMembers: true,
  },
  deployments: {
    tunnel: "unsupported",
    schedule: "native",
    fileMountPathRequired: true,
    outcomeDescriptionRequired: false,
    environmentRequired: true,
    messageEventRequired: true,
    outcomeEvent: "dropped",
  },
  skills: { frontmatterNameRequired: true },
  // docs/wire/provider-a.md: a duplicate name on create is a conflict (409, 11300026).
  uniqueNames: {
    environments: "name",
    agents: "name",
    skills: "name (from SKILL.md)",
    deployments: "name",
  },
  channels: NO_CHANNELS,
};
