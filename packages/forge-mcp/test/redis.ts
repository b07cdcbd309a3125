import { type ChildProcess, spawn } from "node:child_process";
import { type AddressInfo, connect, createServer as createNetServer, type Socket } from "node:net";
import { servicePath } from "../../../scripts/test-services.js";
import { freePort } from "./helpers.js";

/** A throwaway redis-server on a loopback port (no persistence), for the exact one-time tests. */

function redisServerPath(): string {
  const path = servicePath("redis-server");
  if (!path) throw new Error("redis-server is not installed (Debian package redis-server)");
  return path;
}

export interface TestRedis {
  url: string;
  port: number;
  stop(): Promise<void>;
  /** SIGKILL: the process dies at once, its connections are reset. */
  kill(): Promise<void>;
  /** SIGSTOP / SIGCONT: the process stays, its connections stay open and silent. */
  pause(): void;
  resume(): void;
  /** A fresh redis-server on the same port (after kill or stop). */
  restart(): Promise<void>;
}

function spawnRedis(bin: string, port: number): Promise<ChildProcess> {
  const child: ChildProcess = spawn(
    bin,
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  return new Promise<ChildProcess>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("Ready to accept connections")) resolve(child);
    });
    child.on("exit", (code) => reject(new Error(`redis-server exited with ${code}: ${out.slice(-500)}`)));
  });
}

const ended = (child: ChildProcess, signal: NodeJS.Signals) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill(signal);
    child.kill("SIGCONT"); // a paused server handles the signal only once it runs again
  });

export async function startRedis(): Promise<TestRedis> {
  const bin = redisServerPath();
  const port = await freePort();
  let child = await spawnRedis(bin, port);
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop: () => ended(child, "SIGTERM"),
    kill: () => ended(child, "SIGKILL"),
    pause: () => child.kill("SIGSTOP"),
    resume: () => child.kill("SIGCONT"),
    async restart() {
      await ended(child, "SIGTERM");
      child = await spawnRedis(bin, port);
    },
  };
}

/**
 * A TCP relay in front of a Redis, to stand for a network path that fails silently: `blackhole()`
 * stops carrying data on the connections open now (they stay open, like a lost NAT mapping),
 * while new connections are relayed normally.
 */
export async function tcpRelay(targetPort: number): Promise<{
  url: string;
  blackhole(): void;
  close(): Promise<void>;
}> {
  const open = new Set<{ client: Socket; upstream: Socket }>();
  const all = new Set<Socket>();
  const server = createNetServer((client) => {
    const upstream = connect(targetPort, "127.0.0.1");
    const pair = { client, upstream };
    open.add(pair);
    all.add(client).add(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    const end = () => {
      open.delete(pair);
      all.delete(client);
      all.delete(upstream);
      client.destroy();
      upstream.destroy();
    };
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `redis://127.0.0.1:${port}`,
    blackhole() {
      for (const { client, upstream } of open) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
      open.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of all) s.destroy();
      }),
  };
}
