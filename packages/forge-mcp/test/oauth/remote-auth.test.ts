import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Forge, forgeCallsSince, forgeLogSeq, startForge } from "../forge-sim.js";
import { type RunningForgeMcp, startForgeMcp } from "../helpers.js";

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
      /Private-Token, JOB-TOKEN or Authorization: Bearer/,
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

describe("REMOTE_AUTHORIZATION: CI/CD job tokens (JOB-TOKEN)", () => {
  // jobs in the private acme/platform/infra, triggered by alice: one running, one finished
  const RUNNING = "sim-job-token-running";
  const FINISHED = "sim-job-token-finished";
  let forge: Forge;
  let mcp: RunningForgeMcp;
  let runningJob: number;
  beforeAll(async () => {
    forge = await startForge();
    await forge.seed({
      pipelines: [
        {
          project: "acme/platform/infra",
          ref: "main",
          jobs: [
            { name: "release", stage: "deploy", status: "running", token: RUNNING },
            { name: "build", stage: "build", status: "success", token: FINISHED },
          ],
        },
      ],
    });
    const jobs = (await (
      await fetch(`${forge.apiUrl}/projects/2/jobs?scope=running`, {
        headers: { "private-token": "sim-forge-pat" },
      })
    ).json()) as Array<{ id: number }>;
    runningJob = jobs[0]!.id;
    mcp = await startForgeMcp({ REMOTE_AUTHORIZATION: "true", FORGE_API_URL: forge.apiUrl });
  });
  afterAll(async () => {
    await mcp?.close();
    await forge?.close();
  });

  const call = async (c: Client, name: string, args: Record<string, unknown>) =>
    (await c.callTool({ name, arguments: args })) as ToolResult;

  it("a job token is verified once with GET /job and forwarded as JOB-TOKEN, never as a bearer", async () => {
    const seq = await forgeLogSeq(forge);
    const ci = await connect(mcp, { "JOB-TOKEN": RUNNING });
    for (let i = 0; i < 3; i++) {
      const r = await call(ci, "list_releases", { project_id: "acme/platform/infra" });
      expect(r.isError, r.content[0]!.text).toBeFalsy();
    }
    await ci.close();
    expect(await forgeCallsSince(forge, seq, "/api/v4/job")).toBe(1);
    expect(await forgeCallsSince(forge, seq, "/api/v4/user")).toBe(0);
    const log = (await (await fetch(`${forge.origin}/_sim/log?since=${seq}`)).json()) as {
      entries: Array<{ path: string; headers: Record<string, string> }>;
    };
    const releases = log.entries.filter((e) =>
      e.path.startsWith("/api/v4/projects/acme%2Fplatform%2Finfra/releases"),
    );
    expect(releases).toHaveLength(3);
    for (const e of releases) {
      expect(e.headers["job-token"]).toBe("[redacted]");
      expect(e.headers.authorization).toBeUndefined();
    }
    expect(mcp.logs.join("")).not.toContain(RUNNING);
  });

  it("a job-token caller and a PAT caller interleaved never see each other's identity", async () => {
    const ci = await connect(mcp, { "JOB-TOKEN": RUNNING });
    const bob = await connect(mcp, { "Private-Token": "sim-forge-pat-bob" });
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        i % 2 === 0 ? call(ci, "get_current_user", {}) : call(bob, "get_current_user", {}),
      ),
    );
    for (const [i, r] of results.entries()) {
      if (i % 2 === 1) expect(JSON.parse(r.content[0]!.text).username).toBe("bob");
      // GET /user is not a job-token endpoint: the forge answers the job token 401, never bob
      else expect(r.isError && r.content[0]!.text).toMatch(/^Forge error 401/);
    }
    await ci.close();
    await bob.close();
  });

  it.each([
    [
      "another project (not on the job's allowlist)",
      "list_releases",
      { project_id: "acme/widgets" },
      /^Forge error 403/,
    ],
    [
      "its own project outside the job-token endpoints",
      "get_project",
      { project_id: "acme/platform/infra" },
      /^Forge error 404/,
    ],
  ])("a job token on %s is refused by the forge", async (_n, tool, args, message) => {
    const ci = await connect(mcp, { "JOB-TOKEN": RUNNING });
    const r = await call(ci, tool, args);
    await ci.close();
    expect(r.isError).toBe(true);
    expect(r.content[0]!.text).toMatch(message);
  });

  it("health_check with a job token reports the forge reachable and the token's job, and says the version is not readable", async () => {
    const seq = await forgeLogSeq(forge);
    const ci = await connect(mcp, { "JOB-TOKEN": RUNNING });
    const r = await call(ci, "health_check", {});
    await ci.close();
    expect(r.isError, r.content[0]!.text).toBeFalsy();
    const body = JSON.parse(r.content[0]!.text);
    // no version (a read result leaves nulls out); version_note says why
    expect(body).toMatchObject({ reachable: true, token: "ci_job_token" });
    expect(body).not.toHaveProperty("version");
    expect(body.job).toMatchObject({ id: runningJob, name: "release", status: "running" });
    expect(body.version_note).toMatch(/does not serve \/version to a CI\/CD job token/);
    // /version is not a job-token endpoint: it is not asked (it would answer 401)
    expect(await forgeCallsSince(forge, seq, "/api/v4/version")).toBe(0);
    // a personal access token still gets the forge's version
    const bob = await connect(mcp, { "Private-Token": "sim-forge-pat-bob" });
    const v = await call(bob, "health_check", {});
    await bob.close();
    expect(JSON.parse(v.content[0]!.text)).toHaveProperty("version");
    expect(JSON.parse(v.content[0]!.text).version).toEqual(expect.any(String));
  });

  it("GITLAB_JOB_TOKEN as the server's own token (no REMOTE_AUTHORIZATION) also travels as JOB-TOKEN", async () => {
    const own = await startForgeMcp({ GITLAB_JOB_TOKEN: RUNNING, FORGE_API_URL: forge.apiUrl });
    try {
      const seq = await forgeLogSeq(forge);
      const c = new Client({ name: "job-token-server", version: "1.0.0" });
      await c.connect(new StreamableHTTPClientTransport(new URL(`${own.url}/mcp`)));
      const r = await call(c, "list_releases", { project_id: 2 });
      await c.close();
      expect(r.isError, r.content[0]!.text).toBeFalsy();
      const log = (await (await fetch(`${forge.origin}/_sim/log?since=${seq}`)).json()) as {
        entries: Array<{ path: string; headers: Record<string, string> }>;
      };
      const e = log.entries.find((x) => x.path === "/api/v4/projects/2/releases")!;
      expect([e.headers["job-token"], e.headers.authorization]).toEqual(["[redacted]", undefined]);
      expect(own.logs.join("")).not.toContain(RUNNING);
    } finally {
      await own.close();
    }
  });

  it("a finished job's token is refused at the door; a running one stops working when its job ends", async () => {
    const done = await initialize(mcp, { "JOB-TOKEN": FINISHED });
    expect(done.status).toBe(401);
    expect(((await done.json()) as { error: { message: string } }).error.message).toBe(
      "Invalid or expired forge token",
    );
    const ci = await connect(mcp, { "JOB-TOKEN": RUNNING });
    expect((await call(ci, "list_releases", { project_id: 2 })).isError).toBeFalsy();
    const cancel = await fetch(`${forge.apiUrl}/projects/2/jobs/${runningJob}/cancel`, {
      method: "POST",
      headers: { "private-token": "sim-forge-pat" },
    });
    expect(cancel.status).toBe(201);
    const after = await call(ci, "list_releases", { project_id: 2 });
    await ci.close();
    expect(after.isError).toBe(true);
    expect(after.content[0]!.text).toMatch(/^Forge error 401/);
  });
});
