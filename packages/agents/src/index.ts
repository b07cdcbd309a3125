/**
 * The library API of `agents`. The CLI uses only what is exported here; so can other programs.
 */
export { DIAGNOSTIC_CODES, type Diagnostic, redact, type SourcePos } from "./config/diagnostics.js";
export {
  type Config,
  type LoadOptions,
  type LoadResult,
  loadConfig,
  loadConfigText,
} from "./config/index.js";
export { jsonSchema } from "./config/json-schema.js";
export { normalizeToolName } from "./config/rules/agents.js";
export { normalizeMountPath, repositoryMountPath } from "./config/rules/mounts.js";
export type {
  AgentDecl,
  ChannelDecl,
  DeploymentDecl,
  EnvironmentDecl,
  IdentityDecl,
  VaultDecl,
} from "./config/schema/index.js";
export { configSchema } from "./config/schema/index.js";
export { type AddressParts, formatAddress, type ParsedAddress, parseAddress } from "./model/address.js";
export type { ProviderCapabilities, Support } from "./model/capabilities.js";
export {
  type ExternalRef,
  expand,
  type ResourceGraph,
  type ResourceNode,
  topologicalOrder,
} from "./model/graph.js";
export { isKind, KINDS, type Kind } from "./model/kinds.js";
export { capabilitiesOf, PROVIDER_NAMES, PROVIDERS, type ProviderName } from "./model/provider-catalog.js";
export {
  agentReferences,
  channelReferences,
  deploymentReferences,
  type Reference,
} from "./model/references.js";
export { type Delivery, deliveryOf, targetsOf } from "./model/targets.js";

export const packageName = "agents";
