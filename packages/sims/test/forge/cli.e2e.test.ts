import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

// The real `agents-sim` CLI: the URL it prints for the forge is what FORGE_API_URL is set to.
const cli = fileURLToPath(new URL("../../dist/cli.js", import.meta.url));
let child: ChildProcess | undefined;
afterAll(async () => {
  if (child && child.exitCode === null) {
    child.kill("SIGTERM");
    await once(child, "exit");
  }
});

describe("agents-sim forge", () => {
  it("prints the forge base URL ending in /api/v4, serves it, and stops on SIGTERM", async () => {
    child = spawn(process.execPath, [cli, "forge", "--port", "0"], { stdio: ["ignore", "pipe", "pipe"] });
    const lines: string[] = [];
    for await (const line of createInterface({ input: child.stdout! })) {
      lines.push(line);
      if (line === "ready") break;
    }
    const [name, url] = lines[0]!.split(" ");
    expect(name).toBe("forge");
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v4$/);
    const me = await fetch(`${url}/user`, { headers: { "private-token": "sim-forge-pat" } });
    expect(((await me.json()) as { username: string }).username).toBe("alice");
    const origin = new URL(url!).origin;
    expect((await fetch(`${origin}/oauth/token/info`)).status).toBe(401);
    child.kill("SIGTERM");
    const [code] = await once(child, "exit");
    expect(code).toBe(0);
  });
});
