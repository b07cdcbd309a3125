// Builtin tools, permissions and MCP toolsets. Both providers take one builtin toolset entry
// (type differs by provider) and one `mcp_toolset` entry per MCP server.

import { DeclarationError } from "../common/errors.js";
import { str } from "../common/handler-kit.js";
import { compact, isRecord, type Json, records, strList } from "./spec.js";

export const BUILTIN_TOOLS = [
  "bash",
  "edit",
  "glob",
  "grep",
  "read",
  "web_fetch",
  "web_search",
  "write",
] as const;

const BY_FOLDED_NAME = new Map(BUILTIN_TOOLS.map((name) => [foldToolName(name), name]));

/** Tool names match case- and separator-insensitively (`Web-Search` = `web_search`). */
function foldToolName(name: string): string {
  return name.toLowerCase().replace(/[\s._-]/g, "");
}

function builtinName(name: string): string | undefined {
  return BY_FOLDED_NAME.get(foldToolName(name));
}

type Permission = "allow" | "ask";

interface ToolsCanonical {
  builtin: string[];
  permissions?: Record<string, "ask">;
  mcp?: Json[];
}

/** Declared `tools` → comparable form: supported builtins sorted, only `ask` permissions listed. */
export function canonicalTools(
  tools: unknown,
  warn?: (message: string) => void,
  options: { keepDefaultToolkits?: boolean } = {},
): ToolsCanonical | undefined {
  if (!isRecord(tools)) return undefined;
  const builtin = new Set<string>();
  for (const name of strList(tools.builtin)) {
    const known = builtinName(name);
    if (known) builtin.add(known);
    else warn?.(`builtin tool "${name}" is not offered by this provider and is not sent`);
  }
  const fallback: Permission = tools.default_permission === "ask" ? "ask" : "allow";
  const overrides = new Map<string, Permission>();
  if (isRecord(tools.permissions)) {
    for (const [name, value] of Object.entries(tools.permissions)) {
      const known = builtinName(name);
      if (known && (value === "allow" || value === "ask")) overrides.set(known, value);
    }
  }
  const sorted = [...builtin].sort();
  const permissions: Record<string, "ask"> = {};
  for (const name of sorted) if ((overrides.get(name) ?? fallback) === "ask") permissions[name] = "ask";
  const mcp = records(tools.mcp)
    .map(canonicalToolkit)
    .filter((t) => options.keepDefaultToolkits || !isDefaultToolkit(t))
    .sort((a, b) => String(a.mcp_server_name).localeCompare(String(b.mcp_server_name)));
  return { builtin: sorted, ...compact({ permissions, mcp }) };
}

/** A toolkit that enables every tool of its server says nothing the plain toolset entry does not. */
function isDefaultToolkit(toolkit: Json): boolean {
  const defaults = isRecord(toolkit.default_config) ? toolkit.default_config : undefined;
  return (defaults === undefined || defaults.enabled === true) && toolkit.configs === undefined;
}

function canonicalToolkit(decl: Json): Json {
  const server = str(decl.mcp_server_name) ?? str(decl.mcpServerName);
  if (!server)
    throw new DeclarationError(
      "managed.mcp_toolkit_without_server",
      "tools.mcp entries need mcp_server_name",
    );
  const defaults = isRecord(decl.default_config) ? decl.default_config : decl.defaultConfig;
  const configs = records(decl.configs)
    .map((c) => ({ name: str(c.name) ?? "", enabled: c.enabled !== false }))
    .sort((a, b) => a.name.localeCompare(b.name));
  return compact({
    type: "mcp_toolkit",
    mcp_server_name: server,
    default_config: isRecord(defaults) ? { enabled: defaults.enabled !== false } : undefined,
    configs,
  });
}

/** The `tools` array: builtin toolset first, then one MCP toolset per server. */
export function toolsToWire(
  tools: ToolsCanonical | undefined,
  serverNames: string[],
  toolsetType: string,
): Json[] {
  const out: Json[] = [];
  if (!tools) out.push({ type: toolsetType });
  else
    out.push({
      type: toolsetType,
      default_config: { enabled: false },
      configs: tools.builtin.map((name) => ({
        name,
        enabled: true,
        permission_policy: { type: tools.permissions?.[name] === "ask" ? "always_ask" : "always_allow" },
      })),
    });
  const toolkits = new Map((tools?.mcp ?? []).map((t) => [String(t.mcp_server_name), t]));
  for (const name of toolkits.keys())
    if (!serverNames.includes(name))
      throw new DeclarationError(
        "managed.mcp_toolkit_server_undeclared",
        `tools.mcp names the MCP server "${name}", but this provider only reaches MCP servers declared ` +
          "in mcp_servers with a url; declare it there",
      );
  for (const name of serverNames) {
    const toolkit = toolkits.get(name);
    out.push(
      compact({
        type: "mcp_toolset",
        mcp_server_name: name,
        default_config: toolkit?.default_config,
        configs: toolkit?.configs,
      }),
    );
  }
  return out;
}

/** Remote `tools` → the declared shape (undefined = the provider's all-tools default). */
export function toolsFromWire(wire: unknown): ToolsCanonical | undefined {
  const entries = records(wire);
  const toolset = entries.find((t) => str(t.type)?.startsWith("agent_toolset_"));
  const mcp = entries
    .filter((t) => t.type === "mcp_toolset")
    .map((t) =>
      canonicalToolkit({
        mcp_server_name: t.mcp_server_name,
        default_config: t.default_config,
        configs: t.configs,
      }),
    )
    .filter((t) => !isDefaultToolkit(t))
    .sort((a, b) => String(a.mcp_server_name).localeCompare(String(b.mcp_server_name)));
  const configs = records(toolset?.configs);
  const defaults = isRecord(toolset?.default_config) ? toolset.default_config : {};
  const defaultEnabled = defaults.enabled !== false;
  const defaultPermission: Permission =
    isRecord(defaults.permission_policy) && defaults.permission_policy.type === "always_ask"
      ? "ask"
      : "allow";
  if (toolset && defaultEnabled && defaultPermission === "allow" && configs.length === 0 && mcp.length === 0)
    return undefined;
  const enabled = new Map<string, Permission>();
  if (toolset && defaultEnabled) for (const name of BUILTIN_TOOLS) enabled.set(name, defaultPermission);
  for (const config of configs) {
    const name = builtinName(str(config.name) ?? "");
    if (!name) continue;
    const on = config.enabled === undefined ? defaultEnabled : config.enabled === true;
    if (!on) {
      enabled.delete(name);
      continue;
    }
    const policy = isRecord(config.permission_policy) ? config.permission_policy.type : undefined;
    enabled.set(name, policy === undefined ? defaultPermission : policy === "always_ask" ? "ask" : "allow");
  }
  const builtin = [...enabled.keys()].sort();
  const permissions: Record<string, "ask"> = {};
  for (const name of builtin) if (enabled.get(name) === "ask") permissions[name] = "ask";
  return { builtin, ...compact({ permissions, mcp }) };
}
