import { spawn } from "node:child_process";
import { type AddressInfo, createServer, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "./helpers.js";

const main = new URL("../dist/forge-mcp.mjs", import.meta.url).pathname;

/** The binary in callback-proxy mode on `port`, with `extra` variables; stderr is collected. */
function spawnProxyMode(port: number, extra: Record<string, string>, prefix: "FORGE" | "GITLAB" = "FORGE") {
  const child = spawn(process.execPath, [main], {
    env: {
      PATH: process.env.PATH ?? "",
      [`${prefix}_MCP_OAUTH`]: "true",
      [`${prefix}_OAUTH_CALLBACK_PROXY`]: "true",
      [`${prefix}_OAUTH_APP_ID`]: "app",
      [`${prefix}_API_URL`]: "https://gitlab.example.com/api/v4",
      MCP_SERVER_URL: `http://127.0.0.1:${port}`,
      PORT: String(port),
      ...extra,
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const out = { stderr: "" };
  child.stderr!.on("data", (d: Buffer) => {
    out.stderr += d.toString();
  });
  return { child, out };
}

describe("the forge-mcp binary over HTTP", () => {
  it("starts from the environment (GITLAB_ spellings), serves the metadata, and stops on SIGTERM", async () => {
    const port = await freePort();
    const { child, out } = spawnProxyMode(port, {}, "GITLAB");
    await new Promise<void>((resolve, reject) => {
      child.stderr!.on("data", () => {
        if (out.stderr.includes("forge-mcp listening")) resolve();
      });
      child.on("exit", (code) => reject(new Error(`exited with ${code}: ${out.stderr}`)));
    });
    const stderr = out.stderr;
    const listening = JSON.parse(stderr.split("\n").find((l) => l.includes("forge-mcp listening"))!);
    expect(listening).toMatchObject({ oauth: "proxy", stateless: false, port });
    const as = (await (
      await fetch(`http://127.0.0.1:${port}/.well-known/oauth-authorization-server`)
    ).json()) as {
      authorization_endpoint: string;
    };
    expect(as.authorization_endpoint).toBe(`http://127.0.0.1:${port}/authorize`);
    const forgeRedirect = await fetch(`http://127.0.0.1:${port}/authorize?client_id=unknown`, {
      redirect: "manual",
    });
    expect(forgeRedirect.status).toBe(400);
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });
});

describe("forge-mcp start-up with an unreachable REDIS_URL", () => {
  const sockets = new Set<Socket>();
  const silent = createServer((socket) => {
    // accepts, never answers
    sockets.add(socket);
    socket.on("error", () => {});
  });
  beforeAll(() => new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve)));
  afterAll(() => {
    for (const s of sockets) s.destroy();
    return new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  const rows: Array<[string, () => Promise<number>]> = [
    ["nothing listens on the port", () => freePort()],
    ["a peer that accepts and never answers", async () => (silent.address() as AddressInfo).port],
  ];
  it.each(rows)("%s: exits 1 with one line naming Redis, not the password", async (_n, redisPort) => {
    const port = await freePort();
    const rport = await redisPort();
    const { child, out } = spawnProxyMode(port, {
      OAUTH_STATELESS_MODE: "true",
      OAUTH_STATELESS_SECRET: Buffer.alloc(32, 5).toString("base64"),
      REDIS_URL: `redis://default:s3cret-pw@127.0.0.1:${rport}`,
      REDIS_CONNECT_TIMEOUT_MS: "300",
    });
    const code = await new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
    const stderr = out.stderr;
    expect(code).toBe(1);
    const lines = stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(`^forge-mcp: cannot reach Redis at 127\\.0\\.0\\.1:${rport} \\(REDIS_URL\\)`),
    );
    expect(stderr).not.toContain("s3cret-pw");
  });
});
