import { type Exposure, type ForgeTool, permitted, toolNames } from "./define.js";

export type { Exposure };

/**
 * Which tools a server exposes, decided in one place from the tools' own metadata (their MCP
 * annotations), never per tool: the toolsets (FORGE_TOOLSETS) plus single tools (GITLAB_TOOLS),
 * then the permission mode (readonly drops every tool whose readOnlyHint is false, modify drops
 * every tool whose destructiveHint is true), then the deny regex (GITLAB_DENIED_TOOLS_REGEX). A
 * tool that is not exposed is not registered, so it is neither listed nor callable.
 */

/**
 * The tools of the selected toolsets (in their order), then the extra tools found in the
 * catalogue's other toolsets, that the policy permits.
 */
export function expose(
  catalogue: Record<string, ForgeTool[]>,
  selectedToolsets: string[],
  e: Exposure,
): ForgeTool[] {
  const picked = selectedToolsets.flatMap((t) => catalogue[t] ?? []);
  const extra = new Set(e.extraTools ?? []);
  const names = new Set(picked.map((t) => t.name));
  // a tool is named by its name or an earlier one (alias)
  for (const t of Object.values(catalogue).flat())
    if (toolNames(t).some((n) => extra.has(n)) && !names.has(t.name)) {
      picked.push(t);
      names.add(t.name);
    }
  return picked.filter((t) => permitted(t, e));
}
