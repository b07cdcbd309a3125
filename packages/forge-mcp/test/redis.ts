import { type ChildProcess, spawn } from "node:child_process";
import { servicePath } from "../../../scripts/test-services.js";
import { freePort } from "./helpers.js";

/** A throwaway redis-server on a loopback port (no persistence), for the exact one-time tests. */

function redisServerPath(): string {
  const path = servicePath("redis-server");
  if (!path) throw new Error("redis-server is not installed (Debian package redis-server)");
  return path;
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
