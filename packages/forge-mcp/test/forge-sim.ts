import { type RunningSim, startSim } from "@agents/sims";

/** The forge simulator with an OAuth application of our own, seeded through its control API. */

export const APP_ID = "forge-mcp-test-app";
export const CLIENT_CB = "http://127.0.0.1:8765/callback";

export interface Forge {
  sim: RunningSim;
  origin: string;
  apiUrl: string;
  seed(body: Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
}

export async function startForge(): Promise<Forge> {
  const sim = await startSim("forge", { port: 0 });
  const origin = sim.url.replace(/\/api\/v4$/, "");
  const seed = async (body: Record<string, unknown>) => {
    const r = await fetch(`${origin}/_sim/seed`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (!r.ok) throw new Error(`forge seed failed: ${r.status} ${await r.text()}`);
  };
  return { sim, origin, apiUrl: sim.url, seed, close: () => sim.close() };
}

/** Registers the forge application forge-mcp fronts, with the callbacks of the given servers. */
export async function seedApp(
  forge: Forge,
  redirectUris: string[],
  uid = APP_ID,
  scopes = ["api", "read_api", "read_user"],
) {
  await forge.seed({
    applications: [
      { uid, name: "forge-mcp under test", confidential: false, redirect_uris: redirectUris, scopes },
    ],
  });
}

/** The environment of a forge-mcp that signs users in through this forge's application. */
export function oauthEnv(forge: Forge, extra: Record<string, string> = {}): Record<string, string> {
  return { FORGE_MCP_OAUTH: "true", FORGE_OAUTH_APP_ID: APP_ID, FORGE_API_URL: forge.apiUrl, ...extra };
}

/** The forge simulator's newest request-log sequence number: where a count of calls starts. */
export async function forgeLogSeq(forge: Forge): Promise<number> {
  const r = (await (await fetch(`${forge.origin}/_sim/log`)).json()) as { entries: Array<{ seq: number }> };
  return r.entries.at(-1)?.seq ?? 0;
}

/** How many requests reached the forge at `path` after the log's sequence number `since`. */
export async function forgeCallsSince(forge: Forge, since: number, path: string): Promise<number> {
  const r = (await (await fetch(`${forge.origin}/_sim/log?since=${since}`)).json()) as {
    entries: Array<{ path: string }>;
  };
  return r.entries.filter((e) => e.path.split("?")[0] === path).length;
}
