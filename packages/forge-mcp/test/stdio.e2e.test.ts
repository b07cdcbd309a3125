import { Client as ClientV2 } from "@modelcontextprotocol/client";
import { StdioClientTransport as StdioV2 } from "@modelcontextprotocol/client/stdio";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ForgeApi } from "../src/forge/api.js";
import { localOAuthLogin, refreshingToken } from "../src/forge/local-oauth.js";
import { type Forge, seedApp, startForge } from "./forge-sim.js";
import { freePort } from "./helpers.js";

const main = new URL("../dist/forge-mcp.mjs", import.meta.url).pathname;

describe("stdio transport and local OAuth", () => {
  let forge: Forge;
  beforeAll(async () => {
    forge = await startForge();
  });
  afterAll(() => forge?.close());

  /** The server as a user runs it over stdio, with the simulator's personal access token. */
  const server = () => ({
    command: process.execPath,
    args: [main],
    env: {
      PATH: process.env.PATH ?? "",
      GITLAB_PERSONAL_ACCESS_TOKEN: "sim-forge-pat",
      GITLAB_API_URL: forge.apiUrl,
    },
    stderr: "pipe" as const,
  });
  type R = { isError?: boolean; content: Array<{ text: string }> };
  type Answer = { action: string; content?: Record<string, unknown> };

  /** Connects the official client of one SDK and revision; its elicitation handler answers `answers` in turn. */
  const clients: Record<
    string,
    (answers: Answer[], asked: string[]) => Promise<{ callTool: Client["callTool"]; close(): Promise<void> }>
  > = {
    "v1 client, the 2025 handshake (elicitation/create from the server)": async (answers, asked) => {
      const client = new Client(
        { name: "stdio-test", version: "1.0.0" },
        { capabilities: { elicitation: {} } },
      );
      client.setRequestHandler(ElicitRequestSchema, async (r) => {
        asked.push(r.params.message);
        return answers.shift() as never;
      });
      await client.connect(new StdioClientTransport(server()));
      return client;
    },
    "v2 client at MCP 2026-07-28 (input_required results)": async (answers, asked) => {
      const client = new ClientV2(
        { name: "stdio-2026", version: "1.0.0" },
        { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: "auto" } },
      );
      client.setRequestHandler("elicitation/create", async (r) => {
        asked.push((r.params as { message: string }).message);
        return answers.shift() as never;
      });
      await client.connect(new StdioV2(server()));
      expect(client.getProtocolEra()).toBe("modern");
      expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
      return client as unknown as { callTool: Client["callTool"]; close(): Promise<void> };
    },
  };

  it.each(Object.keys(clients))(
    "serves the tools over stdio with a personal access token (GITLAB_ spelling); a destructive tool asks the person: %s",
    async (kind) => {
      const answers = [{ action: "decline" }, { action: "accept", content: { confirm: true } }];
      const asked: string[] = [];
      const client = await clients[kind]!(answers, asked);
      const call = (name: string, args: Record<string, unknown>) =>
        client.callTool({ name, arguments: args }) as Promise<R>;
      expect(JSON.parse((await call("whoami", {})).content[0]!.text).username).toBe("alice");
      // a tool this server does not have is the JSON-RPC error -32602, not a tool result
      await expect(call("no_such_tool", {})).rejects.toMatchObject({ code: -32602 });
      // declined: no DELETE reaches the forge; accepted: the issue is gone
      const created = await call("create_issue", { project_id: "acme/widgets", title: "stdio confirm" });
      const iid = JSON.parse(created.content[0]!.text).iid as number;
      const del = () => call("delete_issue", { project_id: "acme/widgets", issue_iid: iid });
      expect((await del()).isError).toBe(true);
      expect((await call("get_issue", { project_id: "acme/widgets", issue_iid: iid })).isError).toBeFalsy();
      expect((await del()).isError).toBeFalsy();
      expect((await call("get_issue", { project_id: "acme/widgets", issue_iid: iid })).isError).toBe(true);
      expect(asked).toHaveLength(2);
      expect(asked[0]).toContain(`delete_issue (project_id=acme/widgets, issue_iid=${iid})`);
      await client.close();
    },
  );

  it("GITLAB_JOB_TOKEN in a CI job: the stdio server sends it as JOB-TOKEN (never a bearer) and health_check reports the job", async () => {
    const token = "sim-job-token-stdio";
    await forge.seed({
      pipelines: [
        {
          project: "acme/platform/infra",
          ref: "main",
          jobs: [{ name: "stdio-release", stage: "deploy", status: "running", token }],
        },
      ],
    });
    const client = new Client({ name: "stdio-job-token", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [main],
        env: { PATH: process.env.PATH ?? "", GITLAB_JOB_TOKEN: token, GITLAB_API_URL: forge.apiUrl },
        stderr: "pipe",
      }),
    );
    type R = { isError?: boolean; content: Array<{ text: string }> };
    const call = (name: string, args: Record<string, unknown>) =>
      client.callTool({ name, arguments: args }) as Promise<R>;
    const releases = await call("list_releases", { project_id: "acme/platform/infra" });
    const health = await call("health_check", {});
    await client.close();
    // as a bearer the forge would not know the token: 401
    expect(releases.isError, releases.content[0]!.text).toBeFalsy();
    expect(JSON.parse(health.content[0]!.text)).toMatchObject({
      token: "ci_job_token",
      job: { name: "stdio-release" },
      version_note: expect.stringMatching(/job token/),
    });
  });

  it("FORGE_USE_OAUTH: browser login on the loopback FORGE_OAUTH_REDIRECT_URI with PKCE", async () => {
    const port = await freePort();
    const redirectUri = `http://127.0.0.1:${port}/callback`;
    await seedApp(forge, [redirectUri], "local-app");
    let shown = "";
    const tokens = await localOAuthLogin({
      rootUrl: forge.origin,
      appId: "local-app",
      redirectUri,
      scopes: ["api"],
      timeoutMs: 5000,
      logger: pino({ level: "silent" }),
      // the "browser": the forge approves at once and redirects to our loopback listener
      open: (url) => {
        shown = url;
        void fetch(url, { redirect: "follow" });
      },
    });
    expect(new URL(shown).searchParams.get("code_challenge_method")).toBe("S256");
    const info = await fetch(`${forge.origin}/oauth/token/info`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(((await info.json()) as { application: { uid: string } }).application.uid).toBe("local-app");

    // a long session: shortly before the two hours are up, the token source refreshes
    let t = Date.now();
    const source = refreshingToken(
      tokens,
      { rootUrl: forge.origin, appId: "local-app", redirectUri, timeoutMs: 5000 },
      () => t,
    );
    expect(await source()).toBe(tokens.access_token);
    t += (tokens.expires_in ?? 7200) * 1000 - 30_000;
    const fresh = await source();
    expect(fresh).not.toBe(tokens.access_token);
    const api = new ForgeApi(forge.apiUrl, source, 5000);
    expect(((await api.get("/user")).data as { username: string }).username).toBe("alice");
  });

  it("stops with one clear line on invalid configuration", async () => {
    const { execFile } = await import("node:child_process");
    const out = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [main],
        { env: { OAUTH_STATELESS_MODE: "true", OAUTH_STATELESS_SECRET: "dG9vIHNob3J0" } },
        (err, _o, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stderr }),
      );
    });
    expect(out.code).toBe(1);
    expect(out.stderr.trim().split("\n")).toHaveLength(1);
    expect(out.stderr).toMatch(/OAUTH_STATELESS_SECRET must be 32 random bytes/);
  });
});
