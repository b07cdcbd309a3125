import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll } from "vitest";
import { APP_ID, CLIENT_CB, type Forge, seedApp, startForge } from "./forge-sim.js";
import { type RunningForgeMcp, startForgeMcp } from "./helpers.js";

/**
 * One forge simulator and one forge-mcp signing users in through it (remote OAuth, our test
 * application, its callback and the test client's registered with the forge), started before the
 * file's tests and closed after them. `env` picks the mode; `callbacks` narrows the redirect URIs
 * the forge application knows (a proxy needs only the server's), `now` is forge-mcp's clock.
 */
export function forgeAndMcp(
  env: Record<string, string>,
  opts: { callbacks?: (mcpUrl: string) => string[]; now?: () => number } = {},
): { forge: Forge; mcp: RunningForgeMcp } {
  const ctx = {} as { forge: Forge; mcp: RunningForgeMcp };
  beforeAll(async () => {
    ctx.forge = await startForge();
    ctx.mcp = await startForgeMcp(
      { FORGE_MCP_OAUTH: "true", FORGE_OAUTH_APP_ID: APP_ID, FORGE_API_URL: ctx.forge.apiUrl, ...env },
      opts.now ? { now: opts.now } : {},
    );
    await seedApp(ctx.forge, opts.callbacks?.(ctx.mcp.url) ?? [`${ctx.mcp.url}/callback`, CLIENT_CB]);
  });
  afterAll(async () => {
    await ctx.mcp?.close();
    await ctx.forge?.close();
  });
  return ctx;
}

/** Moves the forge simulator's clock (tokens expire at the forge; forge-mcp's own clock stays). */
export async function advanceForgeClock(forge: Forge, seconds: number): Promise<void> {
  await fetch(`${forge.origin}/_sim/clock`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ advance_seconds: seconds }),
  });
}

export type ToolResult = { isError?: boolean; content: Array<{ text: string }> };

/**
 * One forge simulator, one forge-mcp on it with the simulator's personal access token over HTTP
 * (`env` adds to that), and the official MCP client connected as `name`, started before the file's
 * tests and closed after them. `call` answers a tool's parsed JSON (or its text) and throws on
 * `isError`; `raw` answers the result as it came.
 */
export function forgeWithToolClient(name: string, env: Record<string, string> = {}) {
  const ctx = {} as { forge: Forge; mcp: RunningForgeMcp; client: Client };
  beforeAll(async () => {
    ctx.forge = await startForge();
    ctx.mcp = await startForgeMcp({
      MCP_TRANSPORT: "http",
      FORGE_TOKEN: "sim-forge-pat",
      FORGE_API_URL: ctx.forge.apiUrl,
      ...env,
    });
    ctx.client = new Client({ name, version: "1.0.0" });
    await ctx.client.connect(new StreamableHTTPClientTransport(new URL(`${ctx.mcp.url}/mcp`)));
  });
  afterAll(async () => {
    await ctx.client?.close();
    await ctx.mcp?.close();
    await ctx.forge?.close();
  });
  const raw = async (tool: string, args: Record<string, unknown>) =>
    (await ctx.client.callTool({ name: tool, arguments: args })) as ToolResult;
  const call = async (tool: string, args: Record<string, unknown>) => {
    const r = await raw(tool, args);
    if (r.isError) throw new Error(`${tool}: ${r.content[0]!.text}`);
    const text = r.content[0]!.text;
    return text.startsWith("{") || text.startsWith("[") ? JSON.parse(text) : text;
  };
  return Object.assign(ctx, { raw, call });
}
