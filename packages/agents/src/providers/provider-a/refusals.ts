// What provider_a refuses at apply that validate reports first, each with its rule: refused by the
// handlers and mappers (every DeclarationError of the provider code names one of these ids) or by
// the provider's API. test/config/apply-refusals.test.ts proves every row against the simulator
// and validate; test/config/throw-sites.test.ts that every throw names a listed id or says why no
// file can foresee it.
// The `common.` rows are refused by code every provider shares (providers/common/) and the
// `engine.` rows by the provider runtime; they are proven here, on provider_a.
import type { ApplyRefusal } from "../types.js";

export const providerARefusals: readonly ApplyRefusal[] = [
  {
    id: "provider_a.deployment_without_environment",
    kind: "deployments",
    message: "environment_id must not be empty",
    rule: "AGENTS1510",
  },
  {
    id: "provider_a.deployment_with_only_an_outcome",
    kind: "deployments",
    message: "needs at least one user.message or system.message initial event",
    rule: "AGENTS1511",
  },
  {
    id: "provider_a.block_without_workspace",
    kind: "agents",
    message: "provider_a needs workspace_id (or base_url)",
    rule: "AGENTS1003",
  },
  {
    id: "provider_a.workspace_id_not_a_host_label",
    kind: "agents",
    message: "is not a valid host label",
    rule: "AGENTS1035",
  },
  {
    id: "provider_a.block_without_api_key",
    kind: "agents",
    message: "provider_a needs api_key",
    rule: "AGENTS1003",
  },
  {
    id: "provider_a.official_skill_upload",
    kind: "skills",
    message: "official skills are referenced from agents",
    rule: "AGENTS1130",
  },
  {
    id: "provider_a.model_map_without_entry",
    kind: "agents",
    message: "model has no entry for provider_a",
    rule: "AGENTS1052",
  },
  {
    id: "provider_a.permission_ask",
    kind: "agents",
    message: "provider_a cannot enforce tool permission ask",
    rule: "AGENTS1203",
  },
  {
    id: "provider_a.mcp_server_by_url",
    kind: "agents",
    message: "must be an official provider_a server referenced by name",
    rule: "AGENTS1207",
  },
  {
    id: "provider_a.mcp_toolkit_without_server",
    kind: "agents",
    message: "tools.mcp entry needs mcp_server_name",
    rule: "AGENTS1205",
  },
  {
    id: "provider_a.mcp_toolkit_server_undeclared",
    kind: "agents",
    message: "which is not in mcp_servers",
    rule: "AGENTS1206",
  },
  {
    id: "provider_a.limited_without_hosts",
    kind: "vaults",
    message: "networking.type limited needs allowed_hosts",
    rule: "AGENTS1111",
  },
  {
    id: "provider_a.unrestricted_with_hosts",
    kind: "vaults",
    message: "networking.type unrestricted contradicts allowed_hosts",
    rule: "AGENTS1114",
  },
  {
    id: "provider_a.allowed_hosts_empty",
    kind: "vaults",
    message: "allowed_hosts is empty",
    rule: "AGENTS1114",
  },
  {
    id: "provider_a.credential_type",
    kind: "vaults",
    message: "provider_a accepts only environment_variable credentials",
    rule: "AGENTS1110",
  },
  {
    id: "provider_a.credential_without_secret_name",
    kind: "vaults",
    message: "secret_name is required",
    rule: "AGENTS1003",
  },
  {
    id: "provider_a.credential_without_secret_value",
    kind: "vaults",
    message: "secret_value is required",
    rule: "AGENTS1003",
  },
  {
    id: "provider_a.file_resource_without_source",
    kind: "deployments",
    message: "needs file_id or source",
    rule: "AGENTS1507",
  },
  {
    id: "provider_a.file_resource_without_mount_path",
    kind: "deployments",
    message: "needs mount_path on provider_a",
    rule: "AGENTS1509",
  },
  {
    id: "provider_a.environment_type_not_cloud",
    kind: "environments",
    message: "provider_a supports only config.type cloud",
    rule: "AGENTS1104",
  },
  {
    id: "provider_a.setup_script",
    kind: "environments",
    message: "setup_script is supported only by provider_b",
    rule: "AGENTS1101",
  },
  {
    id: "provider_a.limited_networking",
    kind: "environments",
    message: "provider_a accepts only unrestricted networking",
    rule: "AGENTS1105",
  },
  {
    id: "common.skill_without_skill_md",
    kind: "skills",
    message: "has no SKILL.md at its root",
    rule: "AGENTS1022",
  },
  { id: "common.mount_path_empty", kind: "deployments", message: "mount path is empty", rule: "AGENTS1400" },
  { id: "common.mount_path_outside_root", kind: "deployments", message: "is not under", rule: "AGENTS1400" },
  {
    id: "common.mount_path_escapes_root",
    kind: "agents",
    message: 'remove the ".." segments',
    rule: "AGENTS1400",
  },
  { id: "common.mount_path_twice", kind: "deployments", message: "is used twice", rule: "AGENTS1401" },
  { id: "engine.kind_not_supported", kind: "channels", message: "does not support", rule: "AGENTS1050" },
  {
    id: "engine.provider_not_declared",
    kind: "agents",
    message: "is not configured: add a providers.",
    rule: "AGENTS1032",
  },
];
