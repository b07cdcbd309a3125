import { afterAll, beforeAll } from "vitest";
import { APP_ID, CLIENT_CB, type Forge, seedApp, startForge } from "./forge-sim.js";
import { type RunningForgeMcp, startForgeMcp } from "./helpers.js";

/**
 * One forge simulator and one forge-mcp signing users in through it (remote OAuth, our test
 * application, its callback and the test client's registered with the forge), started before the
 * file's tests and closed after them. `env` picks the mode.
 */
export function forgeAndMcp(env: Record<string, string>): { forge: Forge; mcp: RunningForgeMcp } {
  const ctx = {} as { forge: Forge; mcp: RunningForgeMcp };
  beforeAll(async () => {
    ctx.forge = await startForge();
    ctx.mcp = await startForgeMcp({
      FORGE_MCP_OAUTH: "true",
      FORGE_OAUTH_APP_ID: APP_ID,
      FORGE_API_URL: ctx.forge.apiUrl,
      ...env,
    });
    await seedApp(ctx.forge, [`${ctx.mcp.url}/callback`, CLIENT_CB]);
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
