import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Forge, startForge } from "../forge-sim.js";
import { startForgeMcp } from "../helpers.js";
import { GITLAB_MCP_2_1_52_TOOLS } from "./gitlab-mcp-names.js";

// Issue 25's promise, renewed by issue 40 for gitlab-mcp 2.1.64: with every toolset enabled
// (FORGE_TOOLSETS=all, or gitlab-mcp's GITLAB_TOOLSETS=all), the official MCP client lists every
// tool name of gitlab-mcp 2.1.52 and of 2.1.64 (Orbit's four included). Each tool's forge calls are
// tested against the simulator in tools/table.test.ts; this checks the names themselves, one case
// per variable.
const GITLAB_MCP_2_1_64_TOOLS = readFileSync(
  new URL("./gitlab-mcp-2.1.64-tools.txt", import.meta.url),
  "utf8",
)
  .split("\n")
  .filter(Boolean);

describe("every gitlab-mcp 2.1.52 and 2.1.64 tool, by its name", () => {
  let forge: Forge;
  beforeAll(async () => {
    forge = await startForge();
  });
  afterAll(async () => {
    await forge?.close();
  });

  it.each(["FORGE_TOOLSETS", "GITLAB_TOOLSETS"])("%s=all lists every one of its names", async (variable) => {
    const mcp = await startForgeMcp({
      FORGE_TOKEN: "sim-forge-pat",
      FORGE_API_URL: forge.apiUrl,
      [variable]: "all",
    });
    try {
      const client = new Client({ name: "gitlab-mcp-names", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${mcp.url}/mcp`)));
      const listed = new Set((await client.listTools()).tools.map((t) => t.name));
      await client.close();
      expect(GITLAB_MCP_2_1_52_TOOLS.length).toBe(217);
      expect(GITLAB_MCP_2_1_52_TOOLS.filter((name) => !listed.has(name))).toEqual([]);
      expect(GITLAB_MCP_2_1_64_TOOLS.length).toBe(263);
      expect(GITLAB_MCP_2_1_64_TOOLS.filter((name) => !listed.has(name))).toEqual([]);
    } finally {
      await mcp.close();
    }
  });
});
