import { describe, expect, it } from "vitest";
import { advanceForgeClock, forgeAndMcp } from "../forge-and-mcp.js";
import { SECRET } from "../helpers.js";
import { connectV1, connectV2 } from "../sdk-clients.js";

/**
 * The forge refuses a token our verification cache still trusts (it expired at the forge early,
 * or was revoked): the tool call answers HTTP 401 invalid_token with the challenge, the cached
 * verification is dropped, and the official clients refresh and succeed at once, instead of
 * reading tool errors until the cache's 60 s run out. Our clock stands still; only the forge's moves.
 */

type ToolResult = { isError?: boolean; content: Array<{ text: string }> };

describe.each([
  ["passthrough", {}],
  ["callback proxy", { FORGE_OAUTH_CALLBACK_PROXY: "true", FORGE_OAUTH_CONSENT: "false" }],
  [
    "stateless",
    {
      FORGE_OAUTH_CALLBACK_PROXY: "true",
      FORGE_OAUTH_CONSENT: "false",
      OAUTH_STATELESS_MODE: "true",
      OAUTH_STATELESS_SECRET: SECRET,
    },
  ],
] as const)("a forge 401 on a tool call makes the client refresh (%s)", (_mode, extra) => {
  const ctx = forgeAndMcp(extra);

  it.each([
    ["v1", connectV1],
    ["v2", connectV2],
  ] as const)("the official %s client", async (_v, connect) => {
    const { forge, mcp } = ctx;
    const { client, provider } = await connect(mcp.url);
    const first = provider.saved.access_token as string;
    expect(((await client.callTool({ name: "whoami", arguments: {} })) as ToolResult).isError).toBeFalsy();

    // the token expires at the forge while our verification cache still holds it
    await advanceForgeClock(forge, 7300);

    const r = (await client.callTool({ name: "whoami", arguments: {} })) as ToolResult;
    expect(r.isError).toBeFalsy();
    expect(JSON.parse(r.content[0]!.text).username).toBe("alice");
    expect(provider.saved.access_token).not.toBe(first);
    // the refused token is remembered as refused: its next use is a 401 without a forge call
    const before = mcp.server.verifier!.forgeCalls;
    const again = await fetch(`${mcp.url}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${first}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    expect(again.status).toBe(401);
    expect(again.headers.get("www-authenticate")).toContain("resource_metadata=");
    expect(mcp.server.verifier!.forgeCalls).toBe(before);
    await client.close();
  });
});
