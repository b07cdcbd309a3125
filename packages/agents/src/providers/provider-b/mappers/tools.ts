// provider_b tool wiring shared by managed Agents and Forward Templates: the PascalCase builtin
// toolset with permission policies, URL MCP servers and their toolsets, skill references.
import { DeclarationError } from "../../common/errors.js";

const TOOLSET_TYPE = "agent_toolset_20260401";

export interface ToolsDecl {
  builtin?: string[];
  default_permission?: "allow" | "ask";
  permissions?: Record<string, "allow" | "ask">;
  mcp?: {
    mcp_server_name?: string;
    mcpServerName?: string;
    default_config?: { enabled: boolean };
    defaultConfig?: { enabled: boolean };
    configs?: { name: string; enabled: boolean }[];
  }[];
}

/** `web_fetch`, `web-fetch`, `WebFetch` → `webfetch` (spec: case- and separator-insensitive). */
export function normalizeToolName(name: string): string {
  return name.toLowerCase().replace(/[\s_-]+/g, "");
}

/** `web_fetch` → `WebFetch`, `bash` → `Bash`. */
export function toPascalCase(name: string): string {
  return name
    .split(/[\s_-]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join("");
}

/** `WebFetch` → `web_fetch` (sync and read-back). */
export function toSnakeCase(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
}

export function builtinToolsetToWire(tools: ToolsDecl | undefined, agent: string): Record<string, unknown> {
  if (!tools?.builtin) return { type: TOOLSET_TYPE };
  const permissions = new Map<string, "allow" | "ask">();
  const builtin = new Set(tools.builtin.map(normalizeToolName));
  for (const [name, value] of Object.entries(tools.permissions ?? {})) {
    const key = normalizeToolName(name);
    if (permissions.has(key))
      throw new DeclarationError(
        "provider_b.permission_twice",
        `agent "${agent}": tools.permissions names ${name} twice`,
      );
    if (!builtin.has(key))
      throw new DeclarationError(
        "provider_b.permission_not_builtin",
        `agent "${agent}": tools.permissions names ${name}, which is not in tools.builtin`,
      );
    permissions.set(key, value);
  }
  const fallback = tools.default_permission ?? "allow";
  return {
    type: TOOLSET_TYPE,
    configs: tools.builtin.map((name) => ({
      name: toPascalCase(name),
      enabled: true,
      permission_policy: {
        type:
          (permissions.get(normalizeToolName(name)) ?? fallback) === "ask" ? "always_ask" : "always_allow",
      },
    })),
  };
}

export interface McpServerDecl {
  name: string;
  type?: string;
  url?: string;
}

export function mcpToWire(servers: McpServerDecl[] | undefined, tools: ToolsDecl | undefined, agent: string) {
  const mcpServers = (servers ?? []).map((s) => {
    if (!s.url || (s.type !== undefined && s.type !== "url" && s.type !== "http")) {
      throw new DeclarationError(
        "provider_b.mcp_server_without_url",
        `agent "${agent}": MCP server "${s.name}" needs a url (provider_b has no official servers by name)`,
      );
    }
    return { name: s.name, type: "http", url: s.url };
  });
  const toolsets = (tools?.mcp ?? []).map((t) => {
    const server = t.mcp_server_name ?? t.mcpServerName;
    if (!server || !mcpServers.some((s) => s.name === server)) {
      throw new DeclarationError(
        "provider_b.mcp_toolkit_server_undeclared",
        `agent "${agent}": tools.mcp names "${server}", which is not in mcp_servers`,
      );
    }
    return {
      type: "mcp_toolset",
      mcp_server_name: server,
      ...((t.default_config ?? t.defaultConfig)
        ? { default_config: t.default_config ?? t.defaultConfig }
        : {}),
      configs: (t.configs ?? []).map((c) => ({ name: c.name, enabled: c.enabled })),
    };
  });
  return { mcpServers, toolsets };
}

/** Read-back of the builtin toolset: either `configs` or the `enabled_tools` variant. */
export function builtinFromWire(tools: unknown): { builtin?: string[]; ask: string[] } {
  const list = Array.isArray(tools) ? (tools as Record<string, unknown>[]) : [];
  const toolset = list.find((t) => t.type === TOOLSET_TYPE);
  if (!toolset) return { ask: [] };
  if (Array.isArray(toolset.enabled_tools)) {
    return { builtin: (toolset.enabled_tools as string[]).map(toSnakeCase).sort(), ask: [] };
  }
  if (!Array.isArray(toolset.configs)) return { ask: [] };
  const configs = toolset.configs as {
    name: string;
    enabled?: boolean;
    permission_policy?: { type?: string };
  }[];
  const enabled = configs.filter((c) => c.enabled !== false);
  return {
    builtin: enabled.map((c) => toSnakeCase(c.name)).sort(),
    ask: enabled
      .filter((c) => c.permission_policy?.type === "always_ask")
      .map((c) => toSnakeCase(c.name))
      .sort(),
  };
}

export interface SkillRefDecl {
  type: string;
  skill_id: string;
  version?: string;
}

/** Skill reference wire type: `custom` stays, `official` is the provider's own catalog `qoder`. */
export function skillRefType(type: string): "custom" | "qoder" {
  return type === "official" ? "qoder" : "custom";
}
