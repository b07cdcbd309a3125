import type Anthropic from "@anthropic-ai/sdk";
import { expect } from "vitest";

/**
 * The SDK's own type declarations are the contract for every response. A TypeScript type does not
 * exist at run time, so each table below lists the keys the SDK declares as REQUIRED for one response
 * type; `Record<RequiredKeys<T>, true>` makes `npm run typecheck` fail when a table misses a key or
 * names one the SDK does not declare (for instance after an SDK upgrade), so the tables cannot drift
 * from the SDK. At run time `expectSdkShape` checks every listed key is present and the `type` tag.
 */
type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T] & string;
type KeyTable<T> = Record<RequiredKeys<T>, true>;

export const agentKeys: KeyTable<Anthropic.Beta.BetaManagedAgentsAgent> = {
  id: true,
  archived_at: true,
  created_at: true,
  description: true,
  execution_identity: true,
  mcp_servers: true,
  metadata: true,
  model: true,
  multiagent: true,
  name: true,
  skills: true,
  system: true,
  tools: true,
  type: true,
  updated_at: true,
  version: true,
};
export const toolsetKeys: KeyTable<Anthropic.Beta.BetaManagedAgentsAgentToolset20260401> = {
  configs: true,
  default_config: true,
  type: true,
};
export const modelConfigKeys: KeyTable<Anthropic.Beta.BetaManagedAgentsModelConfig> = { id: true };
export const environmentKeys: KeyTable<Anthropic.Beta.BetaEnvironment> = {
  id: true,
  archived_at: true,
  config: true,
  created_at: true,
  description: true,
  metadata: true,
  name: true,
  type: true,
  updated_at: true,
};
export const cloudConfigKeys: KeyTable<Anthropic.Beta.BetaCloudConfig> = {
  networking: true,
  packages: true,
  type: true,
};
export const limitedNetworkKeys: KeyTable<Anthropic.Beta.BetaLimitedNetwork> = {
  allow_mcp_servers: true,
  allow_package_managers: true,
  allowed_hosts: true,
  type: true,
};
export const packagesKeys: KeyTable<Anthropic.Beta.BetaPackages> = {
  apt: true,
  cargo: true,
  gem: true,
  go: true,
  npm: true,
  pip: true,
};
export const vaultKeys: KeyTable<Anthropic.Beta.Vaults.BetaManagedAgentsVault> = {
  id: true,
  archived_at: true,
  created_at: true,
  display_name: true,
  metadata: true,
  type: true,
  updated_at: true,
};
export const credentialKeys: KeyTable<Anthropic.Beta.Vaults.BetaManagedAgentsCredential> = {
  id: true,
  archived_at: true,
  auth: true,
  created_at: true,
  metadata: true,
  type: true,
  updated_at: true,
  vault_id: true,
};
export const staticBearerAuthKeys: KeyTable<Anthropic.Beta.Vaults.BetaManagedAgentsStaticBearerAuthResponse> =
  {
    mcp_server_url: true,
    type: true,
  };
export const envVarAuthKeys: KeyTable<Anthropic.Beta.Vaults.BetaManagedAgentsEnvironmentVariableAuthResponse> =
  {
    injection_location: true,
    networking: true,
    secret_name: true,
    type: true,
  };
export const memoryStoreKeys: KeyTable<Anthropic.Beta.MemoryStores.BetaManagedAgentsMemoryStore> = {
  id: true,
  archived_at: true,
  created_at: true,
  description: true,
  metadata: true,
  name: true,
  type: true,
  updated_at: true,
};
export const memoryKeys: KeyTable<Anthropic.Beta.MemoryStores.BetaManagedAgentsMemory> = {
  id: true,
  content_sha256: true,
  content_size_bytes: true,
  created_at: true,
  memory_store_id: true,
  memory_version_id: true,
  path: true,
  type: true,
  updated_at: true,
};
export const memoryPrefixKeys: KeyTable<Anthropic.Beta.MemoryStores.BetaManagedAgentsMemoryPrefix> = {
  path: true,
  type: true,
};
export const memoryVersionKeys: KeyTable<Anthropic.Beta.MemoryStores.BetaManagedAgentsMemoryVersion> = {
  id: true,
  created_at: true,
  memory_id: true,
  memory_store_id: true,
  operation: true,
  type: true,
};
export const sessionKeys: KeyTable<Anthropic.Beta.Sessions.BetaManagedAgentsSession> = {
  id: true,
  agent: true,
  archived_at: true,
  budget: true,
  created_at: true,
  environment_id: true,
  metadata: true,
  outcome_evaluations: true,
  resources: true,
  stats: true,
  status: true,
  title: true,
  type: true,
  updated_at: true,
  usage: true,
  vault_ids: true,
};
export const sessionAgentKeys: KeyTable<Anthropic.Beta.Sessions.BetaManagedAgentsSessionAgent> = {
  id: true,
  description: true,
  execution_identity: true,
  mcp_servers: true,
  model: true,
  multiagent: true,
  name: true,
  skills: true,
  system: true,
  tools: true,
  type: true,
  version: true,
};
export const fileResourceKeys: KeyTable<Anthropic.Beta.Sessions.BetaManagedAgentsFileResource> = {
  id: true,
  created_at: true,
  file_id: true,
  mount_path: true,
  type: true,
  updated_at: true,
};
export const userMessageEventKeys: KeyTable<Anthropic.Beta.Sessions.BetaManagedAgentsUserMessageEvent> = {
  id: true,
  content: true,
  type: true,
};
export const agentMessageEventKeys: KeyTable<Anthropic.Beta.Sessions.BetaManagedAgentsAgentMessageEvent> = {
  id: true,
  content: true,
  processed_at: true,
  type: true,
};
export const statusIdleEventKeys: KeyTable<Anthropic.Beta.Sessions.BetaManagedAgentsSessionStatusIdleEvent> =
  {
    id: true,
    processed_at: true,
    stop_details: true,
    stop_reason: true,
    type: true,
  };
export const statusRunningEventKeys: KeyTable<Anthropic.Beta.Sessions.BetaManagedAgentsSessionStatusRunningEvent> =
  { id: true, processed_at: true, type: true };
export const threadKeys: KeyTable<Anthropic.Beta.Sessions.BetaManagedAgentsSessionThread> = {
  id: true,
  agent: true,
  archived_at: true,
  created_at: true,
  parent_thread_id: true,
  session_id: true,
  stats: true,
  status: true,
  type: true,
  updated_at: true,
  usage: true,
  workflow_run_id: true,
};
export const threadAgentKeys: KeyTable<Anthropic.Beta.BetaManagedAgentsSessionThreadAgent> = {
  id: true,
  description: true,
  execution_identity: true,
  mcp_servers: true,
  model: true,
  name: true,
  skills: true,
  system: true,
  tools: true,
  type: true,
  version: true,
};
export const mcpToolsetKeys: KeyTable<Anthropic.Beta.BetaManagedAgentsMCPToolset> = {
  configs: true,
  default_config: true,
  mcp_server_name: true,
  type: true,
};
export const mcpServerKeys: KeyTable<Anthropic.Beta.BetaManagedAgentsMCPServerURLDefinition> = {
  name: true,
  type: true,
  url: true,
};
export const skillRefKeys: KeyTable<Anthropic.Beta.BetaManagedAgentsCustomSkill> = {
  skill_id: true,
  type: true,
  version: true,
};
export const agentRefKeys: KeyTable<Anthropic.Beta.BetaManagedAgentsAgentReference> = {
  id: true,
  type: true,
  version: true,
};
export const skillKeys: KeyTable<Anthropic.Beta.BetaSkill> = {
  id: true,
  created_at: true,
  display_name: true,
  latest_version_id: true,
  source: true,
  type: true,
  updated_at: true,
};
export const skillVersionKeys: KeyTable<Anthropic.Beta.Skills.BetaSkillVersion> = {
  id: true,
  created_at: true,
  description: true,
  name: true,
  skill_id: true,
  type: true,
};
export const fileKeys: KeyTable<Anthropic.Beta.BetaFileMetadata> = {
  id: true,
  created_at: true,
  filename: true,
  mime_type: true,
  size_bytes: true,
  type: true,
};
export const deploymentKeys: KeyTable<Anthropic.Beta.BetaManagedAgentsDeployment> = {
  id: true,
  agent: true,
  archived_at: true,
  created_at: true,
  description: true,
  environment_id: true,
  initial_events: true,
  metadata: true,
  name: true,
  paused_reason: true,
  resources: true,
  schedule: true,
  status: true,
  type: true,
  updated_at: true,
  vault_ids: true,
};
export const cronScheduleKeys: KeyTable<Anthropic.Beta.BetaManagedAgentsCronSchedule> = {
  expression: true,
  timezone: true,
  type: true,
};
export const deploymentRunKeys: KeyTable<Anthropic.Beta.BetaManagedAgentsDeploymentRun> = {
  id: true,
  agent: true,
  created_at: true,
  deployment_id: true,
  error: true,
  session_id: true,
  trigger_context: true,
  type: true,
};
export const deletedKeys: KeyTable<Anthropic.Beta.Vaults.BetaManagedAgentsDeletedVault> = {
  id: true,
  type: true,
};

/**
 * Every key the table lists is present (null is a value; undefined is a missing key) and, when the
 * SDK declares a literal `type` tag, the object carries exactly that tag.
 */
export function expectSdkShape(value: unknown, keys: Record<string, true>, typeTag?: string): void {
  expect(value, "an object").toBeTypeOf("object");
  const obj = value as Record<string, unknown>;
  const missing = Object.keys(keys).filter((k) => obj[k] === undefined);
  expect(missing, `keys the SDK declares required but the response lacks (${JSON.stringify(obj)})`).toEqual(
    [],
  );
  if (typeTag !== undefined) expect(obj.type).toBe(typeTag);
}
