import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { APP_ID, type Forge, startForge } from "./forge-sim.js";
import { type RunningForgeMcp, SECRET, startForgeMcp } from "./helpers.js";

/**
 * /health (liveness, no I/O) and /ready (readiness: asks the store) in every mode without Redis;
 * with Redis, dead or alive, see oauth/redis-outage.e2e.test.ts.
 */

const oauth = { FORGE_MCP_OAUTH: "true", FORGE_OAUTH_APP_ID: APP_ID };
const modes: Array<[string, Record<string, string>, unknown]> = [
  ["no OAuth (a configured token)", { FORGE_TOKEN: "sim-forge-pat" }, undefined],
  ["passthrough", oauth, { kind: "memory", up: true }],
  ["callback proxy", { ...oauth, FORGE_OAUTH_CALLBACK_PROXY: "true" }, { kind: "memory", up: true }],
  [
    "stateless",
    {
      ...oauth,
      FORGE_OAUTH_CALLBACK_PROXY: "true",
      OAUTH_STATELESS_MODE: "true",
      OAUTH_STATELESS_SECRET: SECRET,
    },
    { kind: "memory", up: true },
  ],
];

let forge: Forge;
beforeAll(async () => {
  forge = await startForge();
});
afterAll(async () => {
  await forge?.close();
});

describe.each(modes)("health and readiness: %s", (_mode, env, store) => {
  let mcp: RunningForgeMcp;
  beforeAll(async () => {
    mcp = await startForgeMcp({ FORGE_API_URL: forge.apiUrl, ...env }, { prefix: "/gitlab" });
  });
  afterAll(async () => {
    await mcp?.close();
  });

  it.each(["/health", "/healthz", "/gitlab/health"])("%s: 200, names the store", async (path) => {
    const r = await fetch(`${mcp.url}${path}`);
    expect(r.status).toBe(200);
    expect(r.headers.get("cache-control")).toBe("no-store");
    expect(await r.json()).toEqual(store ? { ok: true, store } : { ok: true });
  });

  it.each(["/ready", "/gitlab/ready"])("%s: 200 while the store answers", async (path) => {
    const r = await fetch(`${mcp.url}${path}`);
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual(store ? { ready: true, store } : { ready: true });
  });
});
