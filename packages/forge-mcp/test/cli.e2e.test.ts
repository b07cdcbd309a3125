import { execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { freePort } from "./helpers.js";

/** The installed command's own wiring: --help, --version, arguments, and the metrics listener. */

const bin = new URL("../bin/forge-mcp.js", import.meta.url).pathname;
const run = promisify(execFile);
const version = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).version;

async function exec(args: string[], env: Record<string, string> = {}) {
  try {
    const r = await run(process.execPath, [bin, ...args], { env: { PATH: process.env.PATH ?? "", ...env } });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe("forge-mcp on the command line", () => {
  it("--help prints the usage and exits 0 without starting (even with a full configuration)", async () => {
    const r = await exec(["--help"], { FORGE_MCP_OAUTH: "true", PORT: "1" });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^forge-mcp: GitLab's API as MCP tools\.\n\nUsage: forge-mcp \[--help \| --version\]/,
    );
    expect(r.stdout).toContain("docs/forge-mcp.md");
    expect(r.stderr).toBe("");
  });

  it("--version prints the package version", async () => {
    const r = await exec(["--version"]);
    expect(r).toMatchObject({ code: 0, stdout: `${version}\n` });
  });

  it("an unknown argument exits 2 with one line", async () => {
    const r = await exec(["--port", "3000"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'forge-mcp: unknown argument "--port": forge-mcp takes --help or --version; it is configured by environment variables (forge-mcp --help)\n',
    );
  });

  it("a gitlab-mcp variable without an equivalent stops start-up with one line, exit 1", async () => {
    const r = await exec([], {
      GITLAB_PERSONAL_ACCESS_TOKEN: "t",
      GITLAB_TOOL_POLICY_HIDDEN: "delete_issue",
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^forge-mcp: invalid configuration: GITLAB_TOOL_POLICY_HIDDEN \(gitlab-mcp\) has no equivalent here: [^\n]+\n$/,
    );
  });

  it("an invalid masking file stops start-up with one line naming the variable, never its pattern, exit 1", async () => {
    const dir = mkdtempSync(join(tmpdir(), "forge-mcp-cli-mask-"));
    const file = join(dir, "mask.json");
    writeFileSync(
      file,
      JSON.stringify({ rules: [{ id: "pw", type: "regex", pattern: "(hunter2", replacement: "x" }] }),
    );
    const r = await exec([], {
      GITLAB_PERSONAL_ACCESS_TOKEN: "t",
      GITLAB_MASKING_ENABLED: "true",
      GITLAB_MASKING_CONFIG: file,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^forge-mcp: invalid configuration: GITLAB_MASKING_CONFIG \([^\n]*mask\.json\): rule "pw": "pattern" is not a valid regular expression\n$/,
    );
    expect(r.stderr).not.toContain("hunter2");
  });

  it("METRICS_PORT serves /metrics on its own listener, not on the main port", async () => {
    const [port, metricsPort] = [await freePort(), await freePort()];
    const child = spawn(process.execPath, [bin], {
      env: {
        PATH: process.env.PATH ?? "",
        REMOTE_AUTHORIZATION: "true",
        PORT: String(port),
        METRICS_PORT: String(metricsPort),
      },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    await new Promise<void>((resolve, reject) => {
      child.stderr!.on("data", (d: Buffer) => {
        stderr += d.toString();
        if (stderr.includes("metrics at /metrics")) resolve();
      });
      child.on("exit", (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
    });
    try {
      const m = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
      expect(m.status).toBe(200);
      expect(await m.text()).toContain("forge_mcp_tool_calls_total");
      expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(404);
    } finally {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
  });
});
