import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Forge, forgeCallsSince, forgeLogSeq, startForge } from "./forge-sim.js";
import { type RunningForgeMcp, startForgeMcp } from "./helpers.js";

/**
 * REMOTE_AUTHORIZATION=true (docs/forge-mcp.md, "Per-user tokens without OAuth"): each request
 * carries its user's own forge token, verified at the forge and cached; two users on one server
 * never see each other's identity; X-GitLab-API-URL selects a listed forge and nothing else.
 */

type ToolResult = { isError?: boolean; content: Array<{ text: string }> };

async function connect(mcp: RunningForgeMcp, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: "remote-auth", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${mcp.url}/mcp`), { requestInit: { headers } }),
  );
  return client;
}

const whoami = async (c: Client) => {
  const r = (await c.callTool({ name: "get_current_user", arguments: {} })) as ToolResult;
  if (r.isError) throw new Error(r.content[0]!.text);
  return JSON.parse(r.content[0]!.text).username as string;
};

const initialize = (mcp: RunningForgeMcp, headers: Record<string, string>) =>
  fetch(`${mcp.url}/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    }),
  });

describe("REMOTE_AUTHORIZATION: per-user tokens", () => {
  let forge: Forge;
  let other: Forge;
  let mcp: RunningForgeMcp;
  let several: RunningForgeMcp;
  beforeAll(async () => {
    forge = await startForge();
    other = await startForge();
    mcp = await startForgeMcp({ REMOTE_AUTHORIZATION: "true", FORGE_API_URL: forge.apiUrl });
    several = await startForgeMcp({
      REMOTE_AUTHORIZATION: "true",
      FORGE_API_URL: forge.apiUrl,
      ENABLE_DYNAMIC_API_URL: "true",
      GITLAB_ALLOWED_HOSTS: other.apiUrl,
    });
  });
  afterAll(async () => {
    await mcp?.close();
    await several?.close();
    await forge?.close();
    await other?.close();
  });

  it("two users' calls on one server, interleaved, each act as their own user; no token is logged", async () => {
    const alice = await connect(mcp, { "Private-Token": "sim-forge-pat" });
    const bob = await connect(mcp, { Authorization: "Bearer sim-forge-pat-bob" });
    const names = await Promise.all(
      Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? whoami(alice) : whoami(bob))),
    );
    expect(names).toEqual(Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? "alice" : "bob")));
    await alice.close();
    await bob.close();
    const logs = mcp.logs.join("");
    expect(logs).not.toContain("sim-forge-pat");
  });

  it("a request without a token gets 401, even right after another user's", async () => {
    const ok = await initialize(mcp, { "Private-Token": "sim-forge-pat" });
    expect(ok.status).toBe(200);
    const anonymous = await initialize(mcp, {});
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(((await anonymous.json()) as { error: { message: string } }).error.message).toMatch(
      /Private-Token or Authorization: Bearer/,
    );
  });

  it("a verified token is cached (one forge check for many requests), a bad one refused and remembered", async () => {
    const seq = await forgeLogSeq(forge);
    const carol = await connect(mcp, { "Private-Token": "sim-forge-pat-carol" });
    for (let i = 0; i < 3; i++) await carol.callTool({ name: "get_project", arguments: { project_id: 1 } });
    await carol.close();
    expect(await forgeCallsSince(forge, seq, "/api/v4/user")).toBe(1);

    const bad = await forgeLogSeq(forge);
    for (let i = 0; i < 3; i++)
      expect((await initialize(mcp, { "Private-Token": "not-a-token" })).status).toBe(401);
    expect(await forgeCallsSince(forge, bad, "/api/v4/user")).toBe(1);
  });

  it.each([
    ["the configured forge", () => forge.apiUrl, 200],
    ["a listed forge", () => other.apiUrl, 200],
    ["a listed forge by its origin alone", () => other.origin, 200],
    ["an unlisted address (SSRF)", () => "http://169.254.169.254/latest/meta-data", 400],
    ["an unlisted port of a listed host", () => other.origin.replace(/:\d+$/, ":1"), 400],
    ["a non-http scheme", () => "file:///etc/passwd", 400],
  ])("X-GitLab-API-URL naming %s answers %i", async (_name, url, status) => {
    const seqA = await forgeLogSeq(forge);
    const seqB = await forgeLogSeq(other);
    const r = await initialize(several, { "Private-Token": "sim-forge-pat-dave", "X-GitLab-API-URL": url() });
    expect(r.status).toBe(status);
    if (status === 400)
      expect(((await r.json()) as { error: { message: string } }).error.message).toMatch(
        /names a forge this server does not serve/,
      );
    const askedA = await forgeCallsSince(forge, seqA, "/api/v4/user");
    const askedB = await forgeCallsSince(other, seqB, "/api/v4/user");
    if (status !== 200) expect(askedA + askedB).toBe(0);
  });

  it("the selected forge serves the tool calls, with the caller's token", async () => {
    const seqA = await forgeLogSeq(forge);
    const seqB = await forgeLogSeq(other);
    const c = await connect(several, {
      "Private-Token": "sim-forge-pat-bob",
      "X-GitLab-API-URL": other.apiUrl,
    });
    expect(await whoami(c)).toBe("bob");
    await c.close();
    expect(await forgeCallsSince(other, seqB, "/api/v4/user")).toBeGreaterThan(0);
    expect(await forgeCallsSince(forge, seqA, "/api/v4/user")).toBe(0);
  });

  it("without ENABLE_DYNAMIC_API_URL the header may only name the configured forge", async () => {
    expect(
      (await initialize(mcp, { "Private-Token": "sim-forge-pat", "X-GitLab-API-URL": forge.apiUrl })).status,
    ).toBe(200);
    expect(
      (await initialize(mcp, { "Private-Token": "sim-forge-pat", "X-GitLab-API-URL": other.apiUrl })).status,
    ).toBe(400);
  });
});
