import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enc } from "../src/forge/api.js";
import { visibleName } from "../src/oauth/consent.js";
import { APP_ID, CLIENT_CB, type Forge, seedApp, startForge } from "./forge-sim.js";
import { getManual, type RunningForgeMcp, register, startForgeMcp } from "./helpers.js";
import { authorizeUrl, pkce } from "./oauth-client.js";

/** The review's low-severity findings, one test each. */

describe("smaller hardening", () => {
  let forge: Forge;
  let oauth: RunningForgeMcp;
  let local: RunningForgeMcp;

  beforeAll(async () => {
    forge = await startForge();
    oauth = await startForgeMcp({
      FORGE_MCP_OAUTH: "true",
      FORGE_OAUTH_CALLBACK_PROXY: "true",
      FORGE_OAUTH_APP_ID: APP_ID,
      FORGE_API_URL: forge.apiUrl,
    });
    await seedApp(forge, [`${oauth.url}/callback`]);
    local = await startForgeMcp({ FORGE_TOKEN: "sim-forge-pat", FORGE_API_URL: forge.apiUrl });
  });
  afterAll(async () => {
    await oauth?.close();
    await local?.close();
    await forge?.close();
  });

  it.each([
    ["GET", "/health"],
    ["GET", "/.well-known/oauth-authorization-server"],
    ["POST", "/register"],
    ["POST", "/token"],
    ["POST", "/mcp"],
    ["GET", "/authorize"],
  ])("%s %s answers with X-Content-Type-Options: nosniff", async (method, path) => {
    const r = await fetch(`${oauth.url}${path}`, { method, redirect: "manual" });
    expect(r.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("the consent page shows bidirectional and invisible characters of a client name as code points", async () => {
    const name = "Good App\u202Egnp.exe\u200B";
    const id = (await register(oauth.url, { redirect_uris: [CLIENT_CB], client_name: name })).body
      .client_id as string;
    const page = await getManual(authorizeUrl(oauth.url, id, pkce().challenge, "s"));
    expect(page.status).toBe(200);
    expect(page.text).toContain("Good App[U+202E]gnp.exe[U+200B]");
    expect(page.text).not.toMatch(/[\u202E\u200B]/);
    expect(visibleName("a\u2066b\u2069c")).toBe("a[U+2066]b[U+2069]c");
  });

  it.each([
    ["group/..", "group%2F.."],
    ["a.b", "a.b"],
    ["...", "..."],
    [42, "42"],
  ] as const)("a path id %j travels as one segment: %s", (id, wire) => {
    expect(enc(id)).toBe(wire);
  });

  it.each([".", "..", "%2e%2E", "%2E"])("a path id %j, a dot segment once resolved, is refused", (id) => {
    expect(() => enc(id)).toThrow("is not a valid id or path");
  });

  it.each([
    ["get_project", { project_id: ".." }],
    ["get_job_artifact_file", { project_id: "acme/widgets", job_id: 1, artifact_path: "../../../../user" }],
  ])("%s with a dot-segment path is an error and reaches no other API path", async (tool, args) => {
    await fetch(`${forge.origin}/_sim/log`, { method: "DELETE" });
    const client = new Client({ name: "dots", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${local.url}/mcp`)));
    try {
      const r = (await client.callTool({ name: tool, arguments: args })) as {
        isError?: boolean;
      };
      expect(r.isError).toBe(true);
    } finally {
      await client.close();
    }
    const entries = (
      (await (await fetch(`${forge.origin}/_sim/log`)).json()) as { entries: Array<{ path: string }> }
    ).entries.filter((e) => !e.path.startsWith("/_sim"));
    expect(entries.map((e) => e.path)).toEqual([]);
  });
});
