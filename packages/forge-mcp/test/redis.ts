import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { freePort } from "./helpers.js";

/** A throwaway redis-server on a loopback port (no persistence), for the exact one-time tests. */

function redisServerPath(): string {
  for (const p of [
    "redis-server",
    "/usr/bin/redis-server",
    "/usr/sbin/redis-server",
    "/usr/local/bin/redis-server",
  ]) {
    try {
      execFileSync(p, ["--version"], { stdio: "ignore" });
      return p;
    } catch {}
  }
  throw new Error("redis-server is not installed: run `apt-get install -y redis-server` (.ci/run does)");
}

export async function startRedis(): Promise<{ url: string; stop(): Promise<void> }> {
  const bin = redisServerPath();
  const port = await freePort();
  const child: ChildProcess = spawn(
    bin,
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  await new Promise<void>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("Ready to accept connections")) resolve();
    });
    child.on("exit", (code) => reject(new Error(`redis-server exited with ${code}: ${out.slice(-500)}`)));
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
