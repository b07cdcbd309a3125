import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

// What is resident in a fresh node process (the module cache is the process's own, so these run in
// a child of their own, against the build).
const dist = new URL("../dist/", import.meta.url).href;
const run = async (code: string) =>
  JSON.parse((await promisify(execFile)(process.execPath, ["--input-type=module", "-e", code])).stdout);

describe("what a server loads", () => {
  it("prom-client only with metrics, the SDK's OAuth metadata router (it brings cors) only with OAuth", async () => {
    const loaded = await run(`
      import { createRequire } from "node:module";
      const { createServer, loadConfig } = await import("${dist}index.js");
      const cache = createRequire(import.meta.url).cache;
      const has = (name) => Object.keys(cache).some((p) => p.includes("/node_modules/" + name + "/"));
      const serve = async (env) => {
        const server = await createServer(loadConfig({ MCP_TRANSPORT: "http", LOG_LEVEL: "silent", ...env }));
        await server.close();
        return { promClient: has("prom-client"), cors: has("cors") };
      };
      const plain = await serve({ FORGE_TOKEN: "t" });
      const full = await serve({
        METRICS_PORT: "0",
        FORGE_MCP_OAUTH: "true",
        FORGE_OAUTH_APP_ID: "app",
        FORGE_API_URL: "https://gitlab.example.com/api/v4",
        MCP_SERVER_URL: "http://127.0.0.1:1",
      });
      console.log(JSON.stringify({ plain, full }));
      process.exit(0);
    `);
    expect(loaded).toEqual({
      plain: { promClient: false, cors: false },
      full: { promClient: true, cors: true },
    });
  });
});
