import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

// What is resident in a fresh node process (V8's flags and the module cache are the process's own,
// so these run in a child of their own, against the build).
const dist = new URL("../dist/", import.meta.url).href;
const run = async (code: string) =>
  JSON.parse((await promisify(execFile)(process.execPath, ["--input-type=module", "-e", code])).stdout);

describe("the young generation (src/heap.ts)", () => {
  it("is held while forge-mcp loads, grows to the cap and no further, and grows again once released", async () => {
    // a steady stream of objects that survive a few collections, as calls in flight do
    const sizes = await run(`
      const heap = await import("${dist}heap.js");
      const ring = new Array(64);
      let turn = 0;
      const churn = async (turns) => {
        for (let t = 0; t < turns; t++, turn++) {
          ring[turn % ring.length] = Array.from({ length: 4000 }, (_, i) => ({ i, s: "x" + i }));
          await new Promise((r) => setImmediate(r));
        }
        return heap.youngGenerationBytes();
      };
      heap.holdYoungGeneration([]);
      const held = await churn(20);
      heap.capYoungGeneration(2);
      const capped = await churn(80);
      heap.releaseYoungGeneration([]);
      const released = await churn(40);
      console.log(JSON.stringify({ held, capped, released }));
    `);
    const MiB = 2 ** 20;
    // V8 starts it at 1 MiB a semi-space (2 MiB in all); loading as much unheld grows it to 16-32 MiB
    expect(sizes.held).toBeLessThanOrEqual(2 * MiB);
    expect(sizes.capped).toBe(2 * 2 * MiB);
    expect(sizes.released).toBeGreaterThan(2 * 2 * MiB);
  });
});

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
