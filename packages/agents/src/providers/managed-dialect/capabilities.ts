// The capabilities provider_c and provider_d share as speakers of the Managed-Agents dialect;
// each provider's capabilities.ts passes the facts where they differ.

import { type ProviderCapabilities, SUPPORTED, type Support, unsupported } from "../../model/capabilities.js";
import type { Kind } from "../../model/kinds.js";
import { cloudEnvironments, kindsBesideProviderB, NO_CHANNELS } from "../common/capability-facts.js";
import { METADATA_LIMITS } from "./ownership.js";

export interface DialectFacts {
  name: string;
  /** Whether top-level `files` are uploaded. */
  files: Support;
  mountRoot: string;
  repositoryMountRoot?: string;
  /** Whether sessions (and deployments) take resources such as git repositories. */
  sessionResources: Support;
  deployments: ProviderCapabilities["deployments"];
  /** The kinds whose metadata the provider stores. */
  metadataKinds: readonly Kind[];
}

export function dialectCapabilities(facts: DialectFacts): ProviderCapabilities {
  return {
    name: facts.name,
    kinds: kindsBesideProviderB({ files: facts.files }),
    mountRoot: facts.mountRoot,
    ...(facts.repositoryMountRoot ? { repositoryMountRoot: facts.repositoryMountRoot } : {}),
    environments: cloudEnvironments(SUPPORTED),
    credentialTypes: { static_bearer: SUPPORTED, environment_variable: SUPPORTED },
    credentialProtocol: unsupported(
      `${facts.name}'s static_bearer credential is \`{type, token, mcp_server_url}\` with no transport field (the server URL decides); remove \`protocol\` to silence this`,
    ),
    agents: {
      forwardEnvironmentNetworking: SUPPORTED,
      builtinTools: ["bash", "read", "write", "edit", "glob", "grep", "web_fetch", "web_search"],
      askPermission: SUPPORTED,
      mcpServerForms: ["url"],
      environmentVariables: unsupported("put values in a vault `environment_variable` credential"),
      forwardDelivery: unsupported("Forward delivery exists only on provider_b"),
      sessionResources: facts.sessionResources,
      forwardAcceptsExternalMembers: true,
    },
    deployments: facts.deployments,
    memoryKeyLimits: { segments: 20, bytes: 1024 },
    metadataLimits: { ...METADATA_LIMITS, kinds: facts.metadataKinds },
    skills: { frontmatterNameRequired: true },
    channels: NO_CHANNELS,
  };
}
