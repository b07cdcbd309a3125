import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { APP_ID, type Forge, seedApp, startForge } from "./forge-sim.js";
import { type RunningForgeMcp, startForgeMcp } from "./helpers.js";

/**
 * DNS rebinding (MCP transport spec: servers must validate Origin): a page whose name now
 * resolves to 127.0.0.1 reaches /mcp with its own Host and Origin. One row per case.
 */

function post(url: string, headers: Record<string, string>): Promise<number> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: "/mcp",
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...headers,
        },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }));
  });
}

describe("/mcp checks Host and Origin", () => {
  let forge: Forge;
  const s: Record<string, RunningForgeMcp> = {};

  beforeAll(async () => {
    forge = await startForge();
    const local = { FORGE_API_URL: forge.apiUrl, FORGE_TOKEN: "glpat-local" };
    s.local = await startForgeMcp(local);
    s.listed = await startForgeMcp({
      ...local,
      MCP_ALLOWED_HOSTS: "mcp.internal",
      MCP_ALLOWED_ORIGINS: "https://app.example",
    });
    s.oauth = await startForgeMcp({
      FORGE_MCP_OAUTH: "true",
      FORGE_OAUTH_APP_ID: APP_ID,
      FORGE_API_URL: forge.apiUrl,
    });
    await seedApp(forge, [`${s.oauth.url}/callback`]);
    await forge.seed({
      tokens: [{ token: "tok-good", application: APP_ID, user: "alice", scopes: ["api"] }],
    });
    await forge.seed({
      tokens: [{ token: "tok-good", application: APP_ID, user: "alice", scopes: ["api"] }],
    });
  });
  afterAll(async () => {
    await Promise.all(Object.values(s).map((x) => x.close()));
    await forge?.close();
  });

  const port = (name: string) => new URL(s[name]!.url).port;
  const rows: Array<[string, string, (p: string) => Record<string, string>, number]> = [
    ["local: loopback Host, no Origin (a CLI client)", "local", (p) => ({ host: `127.0.0.1:${p}` }), 200],
    ["local: Host localhost", "local", (p) => ({ host: `localhost:${p}` }), 200],
    ["local: a rebound name as Host", "local", () => ({ host: "attacker.example" }), 403],
    [
      "local: a foreign page's Origin",
      "local",
      (p) => ({ host: `127.0.0.1:${p}`, origin: "http://attacker.example" }),
      403,
    ],
    ["local: an opaque Origin", "local", (p) => ({ host: `127.0.0.1:${p}`, origin: "null" }), 403],
    [
      "local: a loopback Origin (a local inspector)",
      "local",
      (p) => ({ host: `127.0.0.1:${p}`, origin: "http://localhost:6274" }),
      200,
    ],
    ["listed: an allowed extra Host", "listed", () => ({ host: "mcp.internal" }), 200],
    [
      "listed: an allowed extra Origin",
      "listed",
      (p) => ({ host: `127.0.0.1:${p}`, origin: "https://app.example" }),
      200,
    ],
    [
      "listed: another Origin",
      "listed",
      (p) => ({ host: `127.0.0.1:${p}`, origin: "https://other.example" }),
      403,
    ],
    [
      "oauth: any Origin with a forge token",
      "oauth",
      (p) => ({
        host: `127.0.0.1:${p}`,
        origin: "https://web-client.example",
        authorization: "Bearer tok-good",
      }),
      200,
    ],
    [
      "oauth: a rebound name as Host",
      "oauth",
      () => ({ host: "attacker.example", authorization: "Bearer tok-good" }),
      403,
    ],
  ];
  it.each(rows.map((r) => [`${r[0]} → ${r[3]}`, ...r.slice(1)] as typeof r))(
    "%s",
    async (_name, server, headers, status) => {
      expect(await post(s[server]!.url, headers(port(server)))).toBe(status);
    },
  );
});
