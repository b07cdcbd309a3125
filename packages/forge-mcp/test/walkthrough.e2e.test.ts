import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Forge, startForge } from "./forge-sim.js";
import { type RunningForgeMcp, startForgeMcp } from "./helpers.js";

/** The walkthrough of docs/forge-mcp.md ("forge-mcp against the forge simulator"), as written. */

const client = new URL("../demo/walkthrough.mjs", import.meta.url).pathname;

describe("the walkthrough's small client", () => {
  let forge: Forge;
  let mcp: RunningForgeMcp;
  beforeAll(async () => {
    forge = await startForge();
    mcp = await startForgeMcp({ REMOTE_AUTHORIZATION: "true", FORGE_API_URL: forge.apiUrl });
  });
  afterAll(async () => {
    await mcp?.close();
    await forge?.close();
  });

  it("signs in with the user's own token and lists that user's projects", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [client], {
      env: { PATH: process.env.PATH ?? "", MCP_URL: `${mcp.url}/mcp`, FORGE_TOKEN: "sim-forge-pat-bob" },
    });
    expect(stdout).toMatch(/^\d+ tools, e\.g\. /);
    expect(stdout).toContain("signed in as bob\n");
    expect(stdout).toContain("project labs/experiments\n");
  });
});
