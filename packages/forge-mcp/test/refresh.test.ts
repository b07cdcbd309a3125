import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { APP_ID, type Forge, seedApp, startForge } from "./forge-sim.js";
import { type RunningForgeMcp, startForgeMcp, testClock } from "./helpers.js";
import { connectV1 } from "./sdk-clients.js";

/** Two hours later: the forge token has expired and the official client refreshes through us. */

describe("token expiry and refresh with the v1 MCP client (proxy mode)", () => {
  let forge: Forge;
  let mcp: RunningForgeMcp;
  const clock = testClock();

  beforeAll(async () => {
    forge = await startForge();
    mcp = await startForgeMcp(
      {
        FORGE_MCP_OAUTH: "true",
        FORGE_OAUTH_CALLBACK_PROXY: "true",
        FORGE_OAUTH_APP_ID: APP_ID,
        FORGE_API_URL: forge.apiUrl,
      },
      { now: clock.now },
    );
    await seedApp(forge, [`${mcp.url}/callback`]);
  });
  afterAll(async () => {
    await mcp?.close();
    await forge?.close();
  });

  it("an expired token gets 401 at /mcp; the client refreshes at /token and the call succeeds", async () => {
    const { client, provider } = await connectV1(mcp.url);
    const first = provider.saved.access_token as string;
    expect((await client.callTool({ name: "get_current_user", arguments: {} })).isError).toBeFalsy();

    // the forge's clock and ours move past the token's two hours (and past our verification cache)
    await fetch(`${forge.origin}/_sim/clock`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ advance_seconds: 7300 }),
    });
    clock.advance(7300 * 1000);

    const r = (await client.callTool({ name: "get_current_user", arguments: {} })) as {
      isError?: boolean;
      content: Array<{ text: string }>;
    };
    expect(r.isError).toBeFalsy();
    expect(JSON.parse(r.content[0]!.text).username).toBe("alice");
    expect(provider.saved.access_token).not.toBe(first);
    await client.close();
  });
});
