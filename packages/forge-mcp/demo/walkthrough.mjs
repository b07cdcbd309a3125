#!/usr/bin/env node
// A small MCP client for the walkthrough in docs/forge-mcp.md ("forge-mcp against the forge
// simulator"): connects to a forge-mcp that runs with REMOTE_AUTHORIZATION=true, sending the
// user's own forge token, then lists the tools and calls two of them.
//   MCP_URL=http://127.0.0.1:3000/mcp FORGE_TOKEN=sim-forge-pat node packages/forge-mcp/demo/walkthrough.mjs
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const url = new URL(process.env.MCP_URL ?? "http://127.0.0.1:3000/mcp");
const token = process.env.FORGE_TOKEN;
if (!token) {
  process.stderr.write("walkthrough: set FORGE_TOKEN to a forge token (the simulator's: sim-forge-pat)\n");
  process.exit(2);
}
const client = new Client({ name: "forge-mcp-walkthrough", version: "1.0.0" });
await client.connect(
  new StreamableHTTPClientTransport(url, { requestInit: { headers: { "Private-Token": token } } }),
);
const { tools } = await client.listTools();
process.stdout.write(
  `${tools.length} tools, e.g. ${tools
    .slice(0, 3)
    .map((t) => t.name)
    .join(", ")}\n`,
);
const text = async (name, args) => {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name}: ${r.content[0].text}`);
  return JSON.parse(r.content[0].text);
};
const me = await text("get_current_user", {});
process.stdout.write(`signed in as ${me.username}\n`);
const projects = await text("list_projects", { membership: true });
for (const p of projects.items) process.stdout.write(`project ${p.path_with_namespace}\n`);
await client.close();
