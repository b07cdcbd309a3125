import { type ProviderCapabilities, SUPPORTED, unsupported } from "../../model/capabilities.js";
import { MANAGED_ENV_VALUE_FORBIDDEN } from "./wire-decisions.js";

/** provider_b facts: see docs/wire/provider-b.md §5 and docs/wire/provider-b.md §4 (Forward). */
export const providerBCapabilities: ProviderCapabilities = {
  name: "provider_b",
  kinds: {
    environments: SUPPORTED,
    tunnels: SUPPORTED,
    vaults: SUPPORTED,
    memory_stores: SUPPORTED,
    skills: SUPPORTED,
    files: unsupported(
      "top-level files are uploaded only to provider_a and provider_d; mount repository content with a `git_repository` resource",
    ),
    identities: SUPPORTED,
    agents: SUPPORTED,
    channels: SUPPORTED,
    deployments: SUPPORTED,
  },
  mountRoot: "/data",
  repositoryMountRoot: "/data/workspace",
  environments: {
    packageManagers: ["apt", "npm", "pip"],
    setupScript: SUPPORTED,
    selfHosted: SUPPORTED,
    selfHostedConfigIsMinimal: true,
    limitedNetworking: SUPPORTED,
  },
  credentialTypes: { static_bearer: SUPPORTED, environment_variable: SUPPORTED },
  credentialProtocol: SUPPORTED,
  agents: {
    forwardEnvironmentNetworking: unsupported(
      "provider_b Forward environments take no networking policy: use a Managed agent for limited egress, or declare `networking: unrestricted`",
    ),
    // The wire form is PascalCase (web_fetch -> WebFetch); the file uses lowercase snake names.
    builtinTools: ["bash", "read", "write", "edit", "glob", "grep", "web_fetch", "web_search"],
    permissionNeedsBuiltin: true,
    askPermission: SUPPORTED,
    mcpServerForms: ["url"],
    environmentVariables: SUPPORTED,
    sessionEnvironmentValueForbids: MANAGED_ENV_VALUE_FORBIDDEN,
    deliveryKey: "provider_b",
    forwardDelivery: SUPPORTED,
    sessionResources: SUPPORTED,
    // A Forward roster needs template ids; external Forward Templates are not exposed.
    forwardAcceptsExternalMembers: false,
    forwardEnvironmentRequired: true,
  },
  deployments: {
    tunnel: "dropped",
    schedule: "native",
    fileMountPathRequired: false,
    outcomeDescriptionRequired: false,
    forwardAgents: unsupported(
      "deploy a Managed agent (remove `delivery.provider_b`), or start the Forward agent through a session",
    ),
  },
  // docs/wire/provider-b.md: a create whose name (an identity's external_id) is taken answers 409.
  uniqueNames: {
    environments: "name",
    agents: "name",
    skills: "name (from SKILL.md)",
    identities: "external_id",
    channels: "name",
  },
  channels: {
    fixedModeRequiresForwardAgent: true,
    types: {
      dingtalk: ["client_id", "client_secret"],
      feishu: ["app_id", "app_secret"],
      wecom: ["bot_id", "secret"],
      wechat: [],
    },
  },
};
