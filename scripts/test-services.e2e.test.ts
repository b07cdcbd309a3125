import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { notRunLine } from "./vitest-global-setup.js";

const VITEST = fileURLToPath(new URL("../node_modules/vitest/vitest.mjs", import.meta.url));

/**
 * The mechanism behind "npm test does all the set-up": a suite that needs a missing service is
 * named in one closing line outside CI, and fails in CI. Runs a real suite that needs nginx in a
 * nested vitest, on a machine made to look as if nginx were missing and could not be installed.
 * The two nested runs (outside CI, in CI) start together: each is mostly vitest's own start.
 */
function runNginxSuite(ci: boolean): Promise<{ status: number | null; out: string }> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    AGENTS_TEST_PRETEND_MISSING: "nginx",
    AGENTS_TEST_INSTALL: "0",
    SKIP_BUILD: "1",
    NO_COLOR: "1",
  };
  delete env.CI;
  delete env.VITEST;
  delete env.VITEST_POOL_ID;
  delete env.VITEST_WORKER_ID;
  if (ci) env.CI = "true";
  return new Promise((resolve, reject) => {
    // vitest's own entry under this Node, not `npx vitest`: npx starts npm first, about 0.75 s
    // of CPU more per run on two cores, for the same vitest.
    const child = spawn(
      process.execPath,
      [VITEST, "run", "packages/forge-mcp/test/oauth/replicas-nginx.e2e.test.ts"],
      {
        env,
        stdio: ["ignore", "pipe", "pipe"],
        timeout: 120_000,
      },
    );
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    child.stderr.on("data", (chunk) => {
      out += chunk;
    });
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, out }));
  });
}

describe("tests that need a Debian service", () => {
  let outside: Promise<{ status: number | null; out: string }>;
  let inCi: Promise<{ status: number | null; out: string }>;
  beforeAll(() => {
    outside = runNginxSuite(false);
    inCi = runNginxSuite(true);
    // Neither rejects unhandled while the other test awaits its own.
    outside.catch(() => undefined);
    inCi.catch(() => undefined);
  });

  it("outside CI, a missing service: the suite is not run, the run passes and names it in one line", async () => {
    const r = await outside;
    expect(r.status).toBe(0);
    const lines = r.out.split("\n").filter((l) => l.startsWith("Not run here"));
    expect(lines).toEqual([
      'Not run here, 1 suite(s) need a service that is not installed (could not install: AGENTS_TEST_INSTALL=0; apt-get install nginx): nginx ("two stateless replicas behind nginx")',
    ]);
  }, 180_000); // a nested vitest: about 5 s idle, past 90 s seen on a loaded machine

  it("in CI, a missing service fails the run", async () => {
    const r = await inCi;
    expect(r.status).not.toBe(0);
    expect(r.out).toContain("needs nginx");
    expect(r.out).toContain("nginx is not installed (Debian package nginx); CI must install it");
  }, 180_000);

  it("the closing line groups suites by service and names the packages to install", () => {
    const lines = [
      JSON.stringify({ service: "redis-server", name: "a" }),
      JSON.stringify({ service: "nginx", name: "b" }),
      JSON.stringify({ service: "redis-server", name: "c" }),
    ];
    expect(notRunLine(lines, ["nginx", "redis-server"], "not root")).toBe(
      'Not run here, 3 suite(s) need a service that is not installed (could not install: not root; apt-get install nginx redis-server): redis-server ("a", "c"); nginx ("b")',
    );
  });
});
