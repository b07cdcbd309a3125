// What provider_b refuses at apply that validate reports first, each with its rule: refused by the
// handlers and mappers (every DeclarationError of the provider code names one of these ids) or by
// the provider's API. test/config/apply-refusals.test.ts proves every row against the simulator
// and validate; test/config/throw-sites.test.ts that every throw names a listed id or says why no
// file can foresee it.
import type { ApplyRefusal } from "../types.js";

export const providerBRefusals: readonly ApplyRefusal[] = [
  {
    id: "provider_b.forward_template_without_environment",
    kind: "agents",
    message: "a Forward Template needs an environment",
    rule: "AGENTS1223",
  },
  {
    id: "provider_b.deployment_of_forward_agent",
    kind: "deployments",
    message: "uses Forward delivery, which cannot be deployed",
    rule: "AGENTS1513",
  },
  {
    id: "provider_b.managed_tool_config_on_managed_delivery",
    kind: "agents",
    message: "managed_tool_config needs Forward delivery",
    rule: "AGENTS1210",
  },
  {
    id: "provider_b.forward_coordinator_with_agent_id",
    kind: "agents",
    message: "a Forward coordinator takes only project agents",
    rule: "AGENTS1304",
  },
  {
    id: "provider_b.model_map_without_entry",
    kind: "agents",
    message: "model has no entry for provider_b",
    rule: "AGENTS1052",
  },
  {
    id: "provider_b.resource_shared_by_managed_and_forward",
    kind: "skills",
    message: "declare one per API domain",
    rule: "AGENTS1219",
  },
  {
    id: "provider_b.block_without_api_key",
    kind: "agents",
    message: "provider_b needs api_key",
    rule: "AGENTS1003",
  },
  {
    id: "provider_b.tunnel_id_without_prefix",
    kind: "tunnels",
    message: "a tunnel needs tunnel_id (prefix tnl_)",
    rule: "AGENTS1125",
  },
  {
    id: "provider_b.official_skill_upload",
    kind: "skills",
    message: "official skills are referenced from agents",
    rule: "AGENTS1130",
  },
  {
    id: "provider_b.forward_memory_without_identity",
    kind: "agents",
    message: "needs defaults.identity",
    rule: "AGENTS1218",
  },
  {
    id: "provider_b.forward_file_empty_path",
    kind: "agents",
    message: "a file given as a path is empty",
    rule: "AGENTS1001",
  },
  {
    id: "provider_b.static_bearer_incomplete",
    kind: "vaults",
    message: "static_bearer needs mcp_server_url and access_token",
    rule: "AGENTS1003",
  },
  {
    id: "provider_b.environment_variable_incomplete",
    kind: "vaults",
    message: "environment_variable needs secret_name and secret_value",
    rule: "AGENTS1003",
  },
  { id: "provider_b.credential_type", kind: "vaults", message: "unknown type", rule: "AGENTS1001" },
  {
    id: "provider_b.file_resource_without_source",
    kind: "deployments",
    message: "needs file_id or source",
    rule: "AGENTS1507",
  },
  {
    id: "provider_b.environment_variable_name",
    kind: "agents",
    message: "is not a valid identifier",
    rule: "AGENTS1224",
  },
  {
    id: "provider_b.setup_script_too_large",
    kind: "environments",
    message: "setup_script is larger than 64 KB",
    rule: "AGENTS1102",
  },
  {
    id: "provider_b.self_hosted_with_cloud_fields",
    kind: "environments",
    message: "a self_hosted environment takes only type and setup_script",
    rule: "AGENTS1103",
  },
  {
    id: "provider_b.package_manager",
    kind: "environments",
    message: "provider_b installs only apt, npm and pip packages",
    rule: "AGENTS1100",
  },
  {
    id: "provider_b.managed_identity_without_external_id",
    kind: "identities",
    message: "a managed identity needs external_id",
    rule: "AGENTS1120",
  },
  { id: "provider_b.channel_type", kind: "channels", message: "unknown type", rule: "AGENTS1604" },
  {
    id: "provider_b.channel_without_credential",
    kind: "channels",
    message: "needs credentials.",
    rule: "AGENTS1605",
  },
  {
    id: "provider_b.qr_channel_with_credentials",
    kind: "channels",
    message: "is QR-only; remove credentials",
    rule: "AGENTS1606",
  },
  {
    id: "provider_b.fixed_channel_incomplete",
    kind: "channels",
    message: "fixed mode needs an identity and a Forward agent",
    rule: "AGENTS1600",
  },
  {
    id: "provider_b.memory_key_not_relative",
    kind: "memory_stores",
    message: "is not a valid relative path",
    rule: "AGENTS1140",
  },
  {
    id: "provider_b.memory_key_twice",
    kind: "memory_stores",
    message: "is declared twice",
    rule: "AGENTS1141",
  },
  {
    id: "provider_b.checkout_branch_and_commit",
    kind: "deployments",
    message: "checkout takes either branch or commit, not both",
    rule: "AGENTS1037",
  },
  {
    id: "provider_b.checkout_short_commit",
    kind: "deployments",
    message: "is not a full SHA",
    rule: "AGENTS1037",
  },
  {
    id: "provider_b.permission_twice",
    kind: "agents",
    message: "tools.permissions names",
    rule: "AGENTS1202",
  },
  {
    id: "provider_b.permission_not_builtin",
    kind: "agents",
    message: "which is not in tools.builtin",
    rule: "AGENTS1209",
  },
  {
    id: "provider_b.mcp_server_without_url",
    kind: "agents",
    message: "needs a url (provider_b has no official servers by name)",
    rule: "AGENTS1207",
  },
  {
    id: "provider_b.mcp_toolkit_server_undeclared",
    kind: "agents",
    message: "which is not in mcp_servers",
    rule: "AGENTS1206",
  },
];
