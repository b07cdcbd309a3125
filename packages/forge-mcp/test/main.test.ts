import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { freePort } from "./helpers.js";

const main = new URL("../dist/main.js", import.meta.url).pathname;

describe("the forge-mcp binary over HTTP", () => {
  it("starts from the environment (GITLAB_ spellings), serves the metadata, and stops on SIGTERM", async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [main], {
      env: {
        PATH: process.env.PATH ?? "",
        GITLAB_MCP_OAUTH: "true",
        GITLAB_OAUTH_CALLBACK_PROXY: "true",
        GITLAB_OAUTH_APP_ID: "app",
        GITLAB_API_URL: "https://gitlab.example.com/api/v4",
        MCP_SERVER_URL: `http://127.0.0.1:${port}`,
        PORT: String(port),
      },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    await new Promise<void>((resolve, reject) => {
      child.stderr!.on("data", (d: Buffer) => {
        stderr += d.toString();
        if (stderr.includes("forge-mcp listening")) resolve();
      });
      child.on("exit", (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
    });
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
