import { execFileSync, spawn, spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * The three packages as a user gets them: `npm pack` each workspace, install the tarballs into an
 * empty folder (their dependencies come from the registry), and run the installed commands.
 */

const root = new URL("..", import.meta.url).pathname;
let dir = "";
let app = "";
const bin = (name: string) => join(app, "node_modules", ".bin", name);

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(cmd, args, { cwd, env: { ...process.env, ...env }, encoding: "utf8", timeout: 60_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "agents-pack-"));
  const packed = join(dir, "packed");
  mkdirSync(packed);
  execFileSync(
    "npm",
    [
      "pack",
      "-w",
      "packages/sims",
      "-w",
      "packages/agents",
      "-w",
      "packages/forge-mcp",
      "--pack-destination",
      packed,
    ],
    { cwd: root, stdio: "ignore" },
  );
  app = join(dir, "app");
  mkdirSync(app);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
  const tarballs = readdirSync(packed).map((f) => join(packed, f));
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", ...tarballs], {
    cwd: app,
    stdio: "ignore",
    timeout: 240_000,
  });
}, 300_000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The facts of packages/forge-mcp/Dockerfile that can be checked without a Docker engine. */
function dockerfile() {
  const text = readFileSync(join(root, "packages/forge-mcp/Dockerfile"), "utf8").replace(/\\\n\s*/g, "");
  const lines = text.split("\n").filter((l) => l.trim() && !l.startsWith("#"));
  const last = (word: string) => lines.filter((l) => l.startsWith(`${word} `)).pop() ?? "";
  const json = (line: string) => JSON.parse(line.slice(line.indexOf("["))) as string[];
  return {
    lines,
    from: lines.filter((l) => l.startsWith("FROM ")).map((l) => l.split(/\s+/)[1]),
    user: last("USER").split(/\s+/)[1],
    cmd: json(last("CMD")),
    healthcheck: json(last("HEALTHCHECK")),
  };
}

describe("packages/forge-mcp/Dockerfile", () => {
  // The image runs the newest LTS line, which `npm run test:node-matrix` tests (Node 20 left
  // maintenance in April 2026; a production image should not start on it).
  it("builds from node:24-slim and runs as a user that is not root", () => {
    const d = dockerfile();
    expect(d.from).toEqual(["node:24-slim", "node:24-slim"]);
    expect(d.user).toBe("node");
  });

  it("copies only paths that exist in the repository", () => {
    const sources = dockerfile()
      .lines.filter((l) => l.startsWith("COPY ") && !l.includes("--from="))
      .flatMap((l) => l.split(/\s+/).slice(1, -1));
    expect(sources.length).toBeGreaterThan(5);
    for (const s of sources) expect(existsSync(join(root, s)), s).toBe(true);
  });

  it("asks /health in its healthcheck", () => {
    expect(dockerfile().healthcheck.join(" ")).toContain("/health'");
  });
});

describe("installed from the packed tarballs", () => {
  it("the tarballs hold the commands and the compiled program, not the tests or build info", () => {
    const files = execFileSync(
      "tar",
      ["-tzf", readdirSync(join(dir, "packed")).map((f) => join(dir, "packed", f))[0]!],
      {
        encoding: "utf8",
      },
    );
    expect(files).toMatch(/package\/bin\/\S+\.js/);
    expect(files).toMatch(/package\/dist\/\S+\.js/);
    expect(files).not.toMatch(/\.test\.|tsbuildinfo|package\/src\//);
  });

  it("agents --version", () => {
    const r = run(bin("agents"), ["--version"], app);
    expect(r).toEqual({ status: 0, out: "0.1.0\n" });
  });

  it("agents validate on a shipped example", () => {
    const project = join(dir, "project");
    cpSync(join(root, "examples", "provider-c"), project, { recursive: true });
    const env = {
      PROVIDER_C_API_KEY: "k",
      ISSUES_TOKEN: "t",
      REGISTRY_TOKEN: "t",
      GIT_TOKEN: "t",
      EXTERNAL_REVIEWER_AGENT_ID: "agent_external",
    };
    const r = run(bin("agents"), ["validate"], project, env);
    expect(r).toEqual({ status: 0, out: "agents.yaml: valid (0 errors, 0 warnings)\n" });
  });

  it("agents-sim --help", () => {
    const r = run(bin("agents-sim"), ["--help"], app);
    expect(r.status).toBe(0);
    expect(r.out).toContain("usage: agents-sim");
  });

  it("forge-mcp starts as the Dockerfile starts it, and its healthcheck passes", async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, "127.0.0.1", () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const image = dockerfile();
    const child = spawn(join(app, image.cmd[0]!), image.cmd.slice(1), {
      cwd: app,
      // the README's one-command start: callback-proxy OAuth over HTTP
      env: {
        PATH: process.env.PATH ?? "",
        FORGE_MCP_OAUTH: "true",
        FORGE_OAUTH_CALLBACK_PROXY: "true",
        MCP_SERVER_URL: `http://127.0.0.1:${port}`,
        FORGE_OAUTH_APP_ID: "app",
        FORGE_API_URL: "https://gitlab.example.com/api/v4",
        PORT: String(port),
        HOST: "127.0.0.1", // the image listens on 0.0.0.0; a test stays on loopback
      },
      stdio: ["ignore", "ignore", "pipe"],
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    try {
      await new Promise<void>((resolve, reject) => {
        let stderr = "";
        child.stderr!.on("data", (d: Buffer) => {
          stderr += d.toString();
          if (stderr.includes("forge-mcp listening")) resolve();
        });
        child.once("exit", (code) => reject(new Error(`forge-mcp exited with ${code}: ${stderr}`)));
      });
      // the image's HEALTHCHECK command, run as the container would run it
      const [node, ...args] = image.healthcheck;
      expect(node).toBe("node");
      expect(run(process.execPath, args, app, { PORT: String(port) }).status).toBe(0);
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
  });
});
