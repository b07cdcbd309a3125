// Kills the real CLI between two of its calls: a `hold` fault parks the second call in the
// simulator, the spawned `agents apply -y` is SIGKILLed once it is parked, and the parked call is
// let go (the simulator drops a request whose client is gone). The killed run's file lock is
// released the way its own message says.
import { spawn } from "node:child_process";
import { promises as fs } from "node:fs";
import { join } from "node:path";
import type { RunningSim } from "@agents/sims";
import { expect } from "vitest";
import { forceUnlock } from "../../src/state/file-store.js";
import { CLI } from "./cli.js";

async function held(sim: RunningSim): Promise<number> {
  return ((await (await fetch(`${sim.origin}/_sim/held`)).json()) as { held: number }).held;
}

/** `agents apply -y` in `dir`, killed once the simulator holds one of its calls. */
export async function killApplyWhileHeld(sim: RunningSim, dir: string, env: Record<string, string>) {
  const child = spawn(process.execPath, [CLI, "apply", "-y"], {
    cwd: dir,
    env: { ...process.env, AGENTS_DEBUG: "", NO_COLOR: "1", ...env },
    stdio: "ignore",
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  try {
    for (let i = 0; i < 800 && (await held(sim)) === 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 25));
    expect(await held(sim), "the CLI never reached the held call").toBeGreaterThan(0);
  } finally {
    child.kill("SIGKILL");
  }
  expect(await exited).toBeNull();
  await fetch(`${sim.origin}/_sim/release`, { method: "POST" });
  const statePath = join(dir, "agents.state.json");
  const lock = JSON.parse(await fs.readFile(`${statePath}.lock`, "utf8")) as { id: string };
  await forceUnlock(statePath, lock.id);
}
