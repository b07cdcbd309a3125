import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ForgeApi } from "../forge/api.js";
import { type ForgeTool, registerTools, type Toolset } from "./define.js";
import { issueTools } from "./issues.js";
import { mergeRequestTools } from "./merge-requests.js";
import { pipelineTools } from "./pipelines.js";
import { projectTools } from "./projects.js";
import { repositoryTools } from "./repository.js";
import { userTools } from "./users.js";

export const TOOLSETS: Record<Toolset, ForgeTool[]> = {
  projects: projectTools,
  issues: issueTools,
  merge_requests: mergeRequestTools,
  pipelines: pipelineTools,
  repository: repositoryTools,
  users: userTools,
};

export interface ToolOptions {
  readOnly: boolean;
  toolsets: string[] | undefined;
}

/** A fresh MCP server with the selected forge tools; apiFor maps a request's auth to a forge client. */
export function createMcpServer(
  opts: ToolOptions,
  apiFor: (extra: { authInfo?: { token: string } | undefined }) => ForgeApi,
  version = "0.1.0",
): McpServer {
  const server = new McpServer({ name: "forge-mcp", version });
  const selected = (opts.toolsets ?? Object.keys(TOOLSETS)) as Toolset[];
  registerTools(
    server,
    selected.flatMap((t) => TOOLSETS[t]),
    apiFor,
    opts,
  );
  return server;
}
