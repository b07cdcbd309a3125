import type { IncomingHttpHeaders } from "node:http";
import type { ClientView } from "./catalogue.js";

/**
 * The headers a client narrows its tool list with, per request: GitLab's MCP server's and GitHub's
 * MCP server's names, so a client configured for either carries over. Each narrows what the
 * operator serves (FORGE_TOOLSETS, the permission mode, the deny regex); none widens it.
 */
export const VIEW_HEADERS = {
  /** Toolsets to show (GitLab's; comma list). */
  gitlabToolsets: "x-gitlab-enabled-mcp-server-toolsets",
  /** Single tools to show beside the toolsets (GitLab's). */
  gitlabTools: "x-gitlab-enabled-mcp-server-tools",
  /** A prefix for every tool name (GitLab's; at most 32 characters). */
  gitlabPrefix: "x-gitlab-mcp-server-tool-name-prefix",
  /** Toolsets to show (GitHub's). */
  toolsets: "x-mcp-toolsets",
  /** Single tools to show beside the toolsets (GitHub's). */
  tools: "x-mcp-tools",
  /** Tools neither shown nor callable (GitHub's). */
  exclude: "x-mcp-exclude-tools",
  /** `true`: only readers (GitHub's). */
  readOnly: "x-mcp-readonly",
} as const;

/** The longest tool-name prefix taken (GitLab's bound). */
export const MAX_PREFIX = 32;

function list(headers: IncomingHttpHeaders, ...names: string[]): string[] | undefined {
  let out: string[] | undefined;
  for (const name of names) {
    const raw = headers[name];
    if (raw === undefined) continue;
    const values = (Array.isArray(raw) ? raw.join(",") : raw)
      .split(",")
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean);
    out = [...(out ?? []), ...values];
  }
  return out;
}

/**
 * The view a request's headers ask for, or undefined when they ask for none (the common case,
 * answered without building anything). A prefix that is not 1–32 characters of letters, digits,
 * `_` or `-` is ignored, so a tool name stays a valid one.
 */
export function viewOf(headers: IncomingHttpHeaders): ClientView | undefined {
  const toolsets = list(headers, VIEW_HEADERS.gitlabToolsets, VIEW_HEADERS.toolsets);
  const tools = list(headers, VIEW_HEADERS.gitlabTools, VIEW_HEADERS.tools);
  const exclude = list(headers, VIEW_HEADERS.exclude);
  const ro = headers[VIEW_HEADERS.readOnly];
  const readOnly = typeof ro === "string" && /^(true|1|yes)$/i.test(ro.trim());
  const rawPrefix = headers[VIEW_HEADERS.gitlabPrefix];
  const prefix =
    typeof rawPrefix === "string" && new RegExp(`^[A-Za-z0-9_-]{1,${MAX_PREFIX}}$`).test(rawPrefix.trim())
      ? rawPrefix.trim()
      : undefined;
  if (!toolsets && !tools && !exclude && !readOnly && !prefix) return undefined;
  return { toolsets, tools, exclude, readOnly, prefix };
}

/** A request's body with the prefix its headers ask for taken off its tool calls' names. */
export function unprefixed(body: unknown, headers: IncomingHttpHeaders): unknown {
  return headers[VIEW_HEADERS.gitlabPrefix] === undefined
    ? body
    : withoutPrefix(body, viewOf(headers)?.prefix);
}

/**
 * A request body with the view's prefix taken off the name of every tools/call in it (a batch
 * too), so the rest of the path sees the catalogue's names. A name without the prefix is left as
 * it is: the catalogue answers it as any other name.
 */
export function withoutPrefix(body: unknown, prefix: string | undefined): unknown {
  if (!prefix) return body;
  if (Array.isArray(body)) return body.map((m) => withoutPrefix(m, prefix));
  if (body === null || typeof body !== "object") return body;
  const m = body as { method?: unknown; params?: { name?: unknown } };
  if (m.method !== "tools/call" || typeof m.params?.name !== "string" || !m.params.name.startsWith(prefix))
    return body;
  return { ...m, params: { ...m.params, name: m.params.name.slice(prefix.length) } };
}
