#!/usr/bin/env node
import { parseArgs } from "node:util";
import { isSimName, SIM_NAMES, type SimName, startSims } from "./index.js";

const USAGE = `usage: agents-sim [NAME ...] [--port N] [--host ADDR] [--seed N]

Starts the named simulators (${SIM_NAMES.join(", ")}; default all) on consecutive
loopback ports from --port (default 4700), prints "NAME BASE_URL" for each, then "ready".
Stops cleanly on SIGINT or SIGTERM.`;

async function main(): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse();
  } catch (e) {
    process.stderr.write(`agents-sim: ${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (parsed.values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const names = parsed.positionals.length ? parsed.positionals : [...SIM_NAMES];
  const unknown = names.filter((n) => !isSimName(n));
  if (unknown.length) {
    process.stderr.write(
      `agents-sim: unknown simulator ${unknown.join(", ")}; known: ${SIM_NAMES.join(", ")}\n`,
    );
    return 2;
  }
  const port = Number(parsed.values.port ?? 4700);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write("agents-sim: --port must be an integer between 0 and 65535\n");
    return 2;
  }
  const host = parsed.values.host ?? "127.0.0.1";
  const sims = await startSims(names as SimName[], {
    port,
    host,
    ...(parsed.values.seed ? { seed: Number(parsed.values.seed) } : {}),
  });
  for (const sim of sims) process.stdout.write(`${sim.name} ${sim.url}\n`);
  process.stdout.write("ready\n");

  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await Promise.all(sims.map((s) => s.close()));
  return 0;
}

function parse() {
  return parseArgs({
    allowPositionals: true,
    options: {
      port: { type: "string", short: "p" },
      host: { type: "string" },
      seed: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`agents-sim: ${(e as Error).message}\n`);
    process.exit(1);
  },
);
