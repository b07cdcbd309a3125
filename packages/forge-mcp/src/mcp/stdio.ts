import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Catalogue } from "./catalogue.js";
import { createMcpServer } from "./sdk-server.js";

/** stdio: one McpServer for the catalogue, on this process's stdin and stdout, for one client. */
export async function serveStdio(catalogue: Catalogue): Promise<void> {
  await createMcpServer(catalogue).connect(new StdioServerTransport());
}
