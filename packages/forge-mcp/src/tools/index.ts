import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ForgeApi } from "../forge/api.js";
import type { Asker, ConfirmMode } from "./confirm.js";
import { type ForgeTool, registerTools, type ToolCall, type Toolset } from "./define.js";
import { type Exposure, expose } from "./exposure.js";
import { graphqlTools } from "./graphql.js";
import { groupTools } from "./groups.js";
import { issueTools } from "./issues.js";
import { labelTools } from "./labels.js";
import { mergeRequestTools } from "./merge-requests.js";
import { milestoneTools } from "./milestones.js";
import { mrDiscussionTools } from "./mr-discussions.js";
import { pipelineTools } from "./pipelines.js";
import { projectTools } from "./projects.js";
import { repositoryTools } from "./repository.js";
import { searchTools } from "./search.js";
import { releaseTools, tagTools } from "./tags-releases.js";
import { userTools } from "./users.js";
import { wikiTools } from "./wiki.js";

/** Every tool, by toolset, in the order tools/list shows them. */
export const TOOLSETS: Record<Toolset, ForgeTool[]> = {
  projects: projectTools,
  issues: issueTools,
  merge_requests: [...mergeRequestTools, ...mrDiscussionTools],
  pipelines: pipelineTools,
  repository: repositoryTools,
  users: userTools,
  groups: groupTools,
  labels: labelTools,
  milestones: milestoneTools,
  tags: tagTools,
  releases: releaseTools,
  wiki: wikiTools,
  search: searchTools,
  graphql: graphqlTools,
};

/** Toolsets served when FORGE_TOOLSETS is unset: everything but GraphQL, which is opt-in. */
export const DEFAULT_TOOLSETS = (Object.keys(TOOLSETS) as Toolset[]).filter((t) => t !== "graphql");

interface ToolOptions extends Exposure {
  readOnly: boolean;
  toolsets: string[] | undefined;
  /** Confirmation of destructive tools (FORGE_MCP_CONFIRM_DESTRUCTIVE); none when unset. */
  confirm?: { mode: ConfirmMode; asker: Asker } | undefined;
  /** Told of every finished tool call (metrics, audit). */
  observe?: ((call: ToolCall) => void) | undefined;
}

/** Every tool name there is, for warnings about GITLAB_TOOLS naming tools we do not have. */
export const ALL_TOOL_NAMES = Object.values(TOOLSETS).flatMap((ts) => ts.map((t) => t.name));

/**
 * The tools a configuration serves, in tools/list order: the selected toolsets' and the extra
 * tools, narrowed by the permission mode and the deny regex (./exposure.ts, the one place).
 */
export function selectTools(opts: ToolOptions): ForgeTool[] {
  return expose(TOOLSETS, opts.toolsets ?? DEFAULT_TOOLSETS, opts);
}

/** A fresh MCP server with the selected forge tools; apiFor maps a request's auth to a forge client. */
export function createMcpServer(
  opts: ToolOptions,
  apiFor: (extra: { authInfo?: { token: string } | undefined }) => ForgeApi,
  version = "0.1.0",
): McpServer {
  const server = new McpServer({ name: "forge-mcp", version });
  registerTools(server, selectTools(opts), apiFor, opts);
  return server;
}
