import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { forgeAndMcp } from "./forge-and-mcp.js";
import { APP_ID, CLIENT_CB, type Forge, seedApp, startForge } from "./forge-sim.js";
import { type RunningForgeMcp, SIGN_IN_MODES, startForgeMcp } from "./helpers.js";
import { connectV1, connectV2 } from "./sdk-clients.js";

/** Full flows with the official MCP clients (v1 and v2 SDK) against the forge simulator. */

const modes = SIGN_IN_MODES;

describe.each(modes)("%s mode", (mode, extra) => {
  // passthrough needs every client callback at the forge; proxy only the server's
  const ctx = forgeAndMcp(extra, {
    callbacks: (url) => (mode === "passthrough" ? [CLIENT_CB] : [`${url}/callback`]),
  });

  for (const [sdk, connect, era] of [
    ["v1 (@modelcontextprotocol/sdk)", connectV1, undefined],
    ["v2 (@modelcontextprotocol/client)", connectV2, "legacy"],
    ["v2 at MCP 2026-07-28", (url: string) => connectV2(url, { revision: "2026" }), "modern"],
  ] as const) {
    it(`${sdk}: discovers, registers, authorizes and calls a tool`, async () => {
      const { client, provider } = await connect(ctx.mcp.url);
      if (era) expect((client as { getProtocolEra(): string }).getProtocolEra()).toBe(era);
      const expectedHops =
        mode === "passthrough"
          ? ["/authorize", "/oauth/authorize"]
          : ["/authorize", "/authorize/consent", "/oauth/authorize", "/callback"];
      expect(provider.steps.map((s) => s.replace(/^\w+ http:\/\/127\.0\.0\.1:\d+/, ""))).toEqual(
        expectedHops,
      );
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name)).toContain("whoami");
      const result = (await client.callTool({ name: "whoami", arguments: {} })) as {
        isError?: boolean;
        content: Array<{ text: string }>;
      };
      expect(result.isError).toBeFalsy();
      expect(JSON.parse(result.content[0]!.text).username).toBe("alice");
      await client.close();
    });
  }
});

describe("behind a path prefix (MCP_SERVER_URL=https://host/gitlab), proxy mode", () => {
  let forge: Forge;
  let mcp: RunningForgeMcp;
  const prefix = "/gitlab";

  beforeAll(async () => {
    forge = await startForge();
    mcp = await startForgeMcp(
      {
        FORGE_MCP_OAUTH: "true",
        FORGE_OAUTH_APP_ID: APP_ID,
        FORGE_API_URL: forge.apiUrl,
        FORGE_OAUTH_CALLBACK_PROXY: "true",
      },
      { prefix },
    );
    await seedApp(forge, [`${mcp.url}${prefix}/callback`]);
  });
  afterAll(async () => {
    await mcp?.close();
    await forge?.close();
  });

  it("the 401 names the RFC 9728 metadata URL, and it and the RFC 8414 document resolve", async () => {
    const r = await fetch(`${mcp.url}${prefix}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: "{}",
    });
    expect(r.status).toBe(401);
    const advertised = r.headers.get("www-authenticate")!.match(/resource_metadata="([^"]+)"/)![1]!;
    expect(advertised).toBe(`${mcp.url}/.well-known/oauth-protected-resource${prefix}/mcp`);
    const prm = (await (await fetch(advertised)).json()) as {
      resource: string;
      authorization_servers: string[];
    };
    expect(prm.resource).toBe(`${mcp.url}${prefix}/mcp`);
    // the same document under the prefix, for a proxy that forwards only /gitlab/*
    const under = await fetch(`${mcp.url}${prefix}/.well-known/oauth-protected-resource${prefix}/mcp`);
    expect(await under.json()).toEqual(prm);
    const as = (await (await fetch(`${mcp.url}/.well-known/oauth-authorization-server${prefix}`)).json()) as {
      issuer: string;
      authorization_endpoint: string;
    };
    expect(as.issuer).toBe(prm.authorization_servers[0]);
    expect(as.authorization_endpoint).toBe(`${mcp.url}${prefix}/authorize`);
  });

  for (const [sdk, connect] of [
    ["v1 (@modelcontextprotocol/sdk)", connectV1],
    ["v2 (@modelcontextprotocol/client)", connectV2],
  ] as const) {
    it(`${sdk}: discovers through the prefix, signs in and calls a tool`, async () => {
      const { client } = await connect(`${mcp.url}${prefix}`);
      const result = (await client.callTool({ name: "whoami", arguments: {} })) as {
        content: Array<{ text: string }>;
      };
      expect(JSON.parse(result.content[0]!.text).username).toBe("alice");
      await client.close();
    });
  }
});
