// The wiring of `agents graph` and `agents playground` in the built CLI: options, exit codes,
// one-line errors, the printed URL and the page script found next to the bundle. What they draw
// and serve is tested in-process (test/cli/graph/model.test.ts) and in Chromium (playground.test.ts).
// One format and the file:line:col refusal run the built CLI; the other formats and the unknown
// format's message run the same program in this process (./cli-here.ts), without a Node start.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, runCli } from "./cli.js";
import { runCliHere } from "./cli-here.js";

const YAML = `version: "1"
providers:
  provider_c:
    api_key: \${PROVIDER_C_API_KEY}
environments:
  sandbox:
    config:
      type: cloud
agents:
  helper:
    model: claude-sonnet-4-5
    instructions: Help.
    environment: sandbox
`;
const env = { PROVIDER_C_API_KEY: "graph-cli-secret-value" };

describe("agents graph and agents playground (spawned CLI)", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "agents-graph-cli-"));
    writeFileSync(join(dir, "agents.yaml"), YAML);
    writeFileSync(join(dir, "broken.yaml"), YAML.replace("environment: sandbox", "environment: nowhere"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ["mermaid", 'n1 -->|"environment"| n0', runCliHere],
    [
      "dot",
      '"provider_c.agents[\\"helper\\"]" -> "provider_c.environments[\\"sandbox\\"]" [label="environment"];',
      runCliHere,
    ],
    [
      "svg (spawned)",
      'data-from="provider_c.agents[&quot;helper&quot;]" data-to="provider_c.environments[&quot;sandbox&quot;]"',
      runCli,
    ],
  ])("--format %s prints the graph", async (title, edge, run) => {
    const format = title.split(" ")[0]!;
    const result = await run(["graph", "--format", format], { cwd: dir, env });
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toContain(edge);
    expect(result.stdout).not.toContain(env.PROVIDER_C_API_KEY);
  });

  it("refuses an unknown format and a file with errors, in words, without a stack", async () => {
    const format = await runCliHere(["graph", "--format", "png"], { cwd: dir, env });
    expect(format.code).toBe(1);
    expect(format.stderr).toBe('error: unknown --format "png"; use one of: mermaid, dot, svg\n');
    const broken = await runCli(["graph", "-f", "broken.yaml"], { cwd: dir, env });
    expect(broken.code).toBe(1);
    expect(broken.stdout).toBe("");
    expect(broken.stderr).toMatch(/broken\.yaml:13:18 error AGENTS\d+/);
    expect(broken.stderr).not.toMatch(/\n\s+at /);
  });

  it("playground --allow-apply prints its tokened URL, serves the built page script, and stops on SIGTERM", async () => {
    const child = spawn(process.execPath, [CLI, "playground", "--allow-apply"], {
      cwd: dir,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise<number | null>((done) => child.on("close", done));
    try {
      let out = "";
      const url = await new Promise<string>((done, fail) => {
        const timer = setTimeout(() => fail(new Error(`no URL printed: ${out}`)), 15_000);
        child.stdout.on("data", (d) => {
          out += d;
          const found = /http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{32}/.exec(out);
          if (found) {
            clearTimeout(timer);
            done(found[0]);
          }
        });
      });
      const first = await fetch(url, { redirect: "manual" });
      expect(first.status).toBe(303);
      const cookie = (first.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
      const script = await fetch(new URL("/app.js", url), { headers: { cookie } });
      expect(script.status).toBe(200);
      expect(await script.text()).toContain("/api/events");
      // --allow-apply reached the server: an unknown plan is refused as unknown (409), not as
      // "applying is off" (403).
      const applied = await fetch(new URL("/api/apply", url), {
        method: "POST",
        headers: { cookie, "content-type": "application/json" },
        body: JSON.stringify({ plan: "unknown" }),
      });
      expect(applied.status).toBe(409);
      expect(out).toContain("(the page may apply plans)");
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
  });
});
