import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { APP_ID, CLIENT_CB, type Forge, seedApp, startForge } from "./forge-sim.js";
import { type RunningForgeMcp, SECRET, startForgeMcp } from "./helpers.js";
import { connectV1, connectV2 } from "./sdk-clients.js";

/** Full flows with the official MCP clients (v1 and v2 SDK) against the forge simulator. */

const modes: Array<[string, Record<string, string>]> = [
  ["passthrough", {}],
  ["proxy", { FORGE_OAUTH_CALLBACK_PROXY: "true" }],
  [
    "stateless proxy",
    { FORGE_OAUTH_CALLBACK_PROXY: "true", OAUTH_STATELESS_MODE: "true", OAUTH_STATELESS_SECRET: SECRET },
  ],
];

describe.each(modes)("%s mode", (mode, extra) => {
  let forge: Forge;
  let mcp: RunningForgeMcp;

  beforeAll(async () => {
    forge = await startForge();
    mcp = await startForgeMcp({
      FORGE_MCP_OAUTH: "true",
      FORGE_OAUTH_APP_ID: APP_ID,
      FORGE_API_URL: forge.apiUrl,
      ...extra,
    });
    // passthrough needs every client callback at the forge; proxy only the server's
    await seedApp(forge, mode === "passthrough" ? [CLIENT_CB] : [`${mcp.url}/callback`]);
  });
  afterAll(async () => {
    await mcp?.close();
    await forge?.close();
  });

  for (const [sdk, connect] of [
    ["v1 (@modelcontextprotocol/sdk)", connectV1],
    ["v2 (@modelcontextprotocol/client)", connectV2],
  ] as const) {
    it(`${sdk}: discovers, registers, authorizes and calls a tool`, async () => {
      const { client, provider } = await connect(mcp.url);
      const expectedHops =
        mode === "passthrough"
          ? ["/authorize", "/oauth/authorize"]
          : ["/authorize", "/authorize/consent", "/oauth/authorize", "/callback"];
      expect(provider.steps.map((s) => s.replace(/^\w+ http:\/\/127\.0\.0\.1:\d+/, ""))).toEqual(
        expectedHops,
      );
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name)).toContain("get_current_user");
      const result = (await client.callTool({ name: "get_current_user", arguments: {} })) as {
        isError?: boolean;
        content: Array<{ text: string }>;
      };
      expect(result.isError).toBeFalsy();
      expect(JSON.parse(result.content[0]!.text).username).toBe("alice");
      await client.close();
    });
  }
});
