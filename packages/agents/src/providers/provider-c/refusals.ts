// What provider_c refuses at apply that validate reports first, each with its rule: refused by the
// handlers and mappers (every DeclarationError of the provider code names one of these ids) or by
// the provider's API. test/config/apply-refusals.test.ts proves every row against the simulator
// and validate; test/config/throw-sites.test.ts that every throw names a listed id or says why no
// file can foresee it.
// The `managed.` rows are refused by the managed dialect that provider_c and provider_d share
// (providers/managed-dialect/); they are proven here, on provider_c.
import type { ApplyRefusal } from "../types.js";

export const providerCRefusals: readonly ApplyRefusal[] = [
  {
    id: "common.skill_md_without_name",
    kind: "skills",
    message: "SKILL.md frontmatter has no name",
    rule: "AGENTS1023",
  },
  {
    id: "provider_c.block_without_api_key",
    kind: "agents",
    message: "providers.provider_c.api_key is required",
    rule: "AGENTS1003",
  },
  {
    id: "provider_c.deployment_without_agent",
    kind: "deployments",
    message: "a deployment needs agent",
    rule: "AGENTS1003",
  },
  {
    id: "provider_c.deployment_without_environment",
    kind: "deployments",
    message: "deployment needs an environment",
    rule: "AGENTS1510",
  },
  {
    id: "provider_c.deployment_without_events",
    kind: "deployments",
    message: "need at least one initial_events entry",
    rule: "AGENTS1500",
  },
  {
    id: "managed.model_map_without_entry",
    kind: "agents",
    message: "model has no entry for provider_c",
    rule: "AGENTS1052",
  },
  { id: "managed.agent_without_model", kind: "agents", message: "model is required", rule: "AGENTS1003" },
  {
    id: "managed.skill_reference_without_id",
    kind: "agents",
    message: "a skill reference needs skill_id",
    rule: "AGENTS1003",
  },
  {
    id: "managed.mcp_server_without_name",
    kind: "agents",
    message: "every mcp_servers entry needs a name",
    rule: "AGENTS1003",
  },
  {
    id: "managed.mcp_server_without_url",
    kind: "agents",
    message: "this provider reaches MCP servers by url only",
    rule: "AGENTS1207",
  },
  {
    id: "managed.roster_member_shape",
    kind: "agents",
    message: "multiagent.agents entries are agent names or {agent_id}",
    rule: "AGENTS1003",
  },
  {
    id: "managed.agent_file_shape",
    kind: "agents",
    message: "agent files entries are file names or {file, mount_path}",
    rule: "AGENTS1003",
  },
  {
    id: "managed.message_event_without_content",
    kind: "deployments",
    message: "a message initial event needs content",
    rule: "AGENTS1003",
  },
  { id: "managed.initial_event_type", kind: "deployments", message: "is not supported", rule: "AGENTS1001" },
  {
    id: "managed.file_resource_without_source",
    kind: "deployments",
    message: "a file resource needs file_id or source",
    rule: "AGENTS1507",
  },
  {
    id: "managed.memory_resource_without_store",
    kind: "deployments",
    message: "a memory_store resource needs memory_store",
    rule: "AGENTS1003",
  },
  {
    id: "managed.deployment_resource_type",
    kind: "deployments",
    message: "is not supported",
    rule: "AGENTS1001",
  },
  {
    id: "managed.schedule_without_expression",
    kind: "deployments",
    message: "schedule needs an expression",
    rule: "AGENTS1003",
  },
  {
    id: "managed.environment_type_not_cloud",
    kind: "environments",
    message: "is not available here",
    rule: "AGENTS1104",
  },
  {
    id: "managed.setup_script",
    kind: "environments",
    message: "config.setup_script is not supported by this provider",
    rule: "AGENTS1101",
  },
  { id: "managed.memory_key_empty", kind: "memory_stores", message: "is empty", rule: "AGENTS1140" },
  { id: "managed.memory_key_too_deep", kind: "memory_stores", message: "path segments", rule: "AGENTS1140" },
  {
    id: "managed.memory_key_dot_segment",
    kind: "memory_stores",
    message: 'may not contain "." or ".." segments',
    rule: "AGENTS1140",
  },
  { id: "managed.memory_key_too_long", kind: "memory_stores", message: "bytes", rule: "AGENTS1140" },
  {
    id: "managed.memory_entry_without_key",
    kind: "memory_stores",
    message: "every memory entry needs a key",
    rule: "AGENTS1003",
  },
  { id: "managed.memory_key_twice", kind: "memory_stores", message: "is declared twice", rule: "AGENTS1141" },
  {
    id: "managed.mount_path_outside_root",
    kind: "deployments",
    message: "is not under this provider's mount root",
    rule: "AGENTS1400",
  },
  {
    id: "managed.mount_path_escapes_root",
    kind: "deployments",
    message: "may not climb out of",
    rule: "AGENTS1400",
  },
  {
    id: "managed.repository_without_url",
    kind: "deployments",
    message: "a git_repository resource needs a url",
    rule: "AGENTS1003",
  },
  { id: "managed.skill_without_source", kind: "skills", message: "a skill needs source", rule: "AGENTS1003" },
  {
    id: "managed.mcp_toolkit_without_server",
    kind: "agents",
    message: "tools.mcp entries need mcp_server_name",
    rule: "AGENTS1205",
  },
  {
    id: "managed.mcp_toolkit_server_undeclared",
    kind: "agents",
    message: "but this provider only reaches MCP servers declared",
    rule: "AGENTS1206",
  },
  {
    id: "managed.credential_without_name",
    kind: "vaults",
    message: "every vault credential needs a name",
    rule: "AGENTS1003",
  },
  {
    id: "managed.static_bearer_incomplete",
    kind: "vaults",
    message: "static_bearer needs mcp_server_url and access_token",
    rule: "AGENTS1003",
  },
  {
    id: "managed.environment_variable_incomplete",
    kind: "vaults",
    message: "environment_variable needs secret_name and secret_value",
    rule: "AGENTS1003",
  },
  { id: "managed.credential_type", kind: "vaults", message: "is not supported", rule: "AGENTS1001" },
  {
    id: "managed.limited_without_hosts",
    kind: "vaults",
    message: "limited networking needs allowed_hosts",
    rule: "AGENTS1111",
  },
  // Metadata limits (providers/common/ownership.ts, given the dialect's limits): listed here, not
  // with the other common refusals, because only the managed dialect applies them.
  {
    id: "common.metadata_too_many_keys",
    kind: "agents",
    message: "keys with the two ownership keys; the provider allows 16",
    rule: "AGENTS1009",
  },
  {
    id: "common.metadata_key_too_long",
    kind: "agents",
    message: "is longer than 64 characters",
    rule: "AGENTS1009",
  },
  {
    id: "common.metadata_value_too_long",
    kind: "agents",
    message: "is longer than 512 characters",
    rule: "AGENTS1009",
  },
];
