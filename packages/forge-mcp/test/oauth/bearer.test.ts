import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseBearer } from "../../src/oauth/bearer.js";
import { APP_ID, type Forge, startForge } from "../forge-sim.js";
import { type RunningForgeMcp, SIGN_IN_MODES, startForgeMcp } from "../helpers.js";

// The one reading of the Authorization header that /mcp's budget and bearer check share: the
// scheme in any case (RFC 7235 §2.1), so a token the check verifies is always one the budget counts.
describe("parseBearer", () => {
  it.each([
    ["Bearer tok", { token: "tok" }],
    ["bearer tok", { token: "tok" }],
    ["BEARER tok", { token: "tok" }],
    ["Bearer tok extra", { token: "tok" }],
    ["Bearer ", undefined],
    ["Bearer  tok", undefined],
    ["Basic dXNlcjpwYXNz", undefined],
    ["Bearer\ttok", undefined],
    [undefined, undefined],
  ])("%j", (header, expected) => {
    expect(parseBearer(header)).toEqual(expected);
  });
});

// RFC 6750 §3.1: a 401 to a request that carried no credential (no Authorization header, or a
// scheme other than Bearer) names no error, only where to sign in; a bearer token that fails is
// invalid_token. One row per credential, in each sign-in mode.
describe("the 401 challenge of /mcp", () => {
  let forge: Forge;
  const servers = new Map<string, RunningForgeMcp>();
  beforeAll(async () => {
    forge = await startForge();
    for (const [mode, extra] of SIGN_IN_MODES)
      servers.set(
        mode,
        await startForgeMcp({
          FORGE_MCP_OAUTH: "true",
          FORGE_OAUTH_APP_ID: APP_ID,
          FORGE_API_URL: forge.apiUrl,
          ...extra,
        }),
      );
  });
  afterAll(async () => {
    await Promise.all([...servers.values()].map((s) => s.close()));
    await forge?.close();
  });

  const rows: Array<{ credential: string; authorization?: string; error?: string }> = [
    { credential: "none" },
    { credential: "another scheme (Basic)", authorization: "Basic dXNlcjpwYXNz" },
    { credential: "an unknown bearer token", authorization: "Bearer made-up-token", error: "invalid_token" },
    { credential: "an empty bearer token", authorization: "Bearer ", error: "invalid_token" },
  ];
  const cases = SIGN_IN_MODES.flatMap(([mode]) => rows.map((row) => ({ mode, ...row })));
  it.each(cases)("$mode, credential: $credential", async ({ mode, authorization, error }) => {
    const base = servers.get(mode)!.url;
    const r = await fetch(`${base}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...(authorization ? { authorization } : {}),
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    expect(r.status).toBe(401);
    const www = r.headers.get("www-authenticate")!;
    expect(www).toMatch(/^Bearer /);
    expect(www).toContain(`resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`);
    expect(www).toContain('scope="api"');
    if (error) expect(www).toContain(`error="${error}"`);
    else expect(www).not.toMatch(/error(_description)?=/);
  });
});
