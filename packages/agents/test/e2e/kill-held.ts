// Kills the real CLI at a chosen moment of its apply: `agents apply -y` is spawned, SIGKILLed once
// `reached` says so, and the killed run's file lock is released the way its own message says.
// `killApplyWhileHeld` kills it between two of its calls: a `hold` fault parks the second call in
// the simulator, and once the CLI is dead the parked call is let go (the simulator drops a
// request whose client is gone).
import { spawn } from "node:child_process";
import { promises as fs } from "node:fs";
import { join } from "node:path";
import type { RunningSim } from "@agents/sims";
import { expect } from "vitest";
import { forceUnlock } from "../../src/state/file-store.js";
import { CLI } from "./cli.js";
import { setFaults } from "./project.js";

/**
 * `agents apply -y` (or `command`) in `dir`, killed once `reached()` holds (polled every 25 ms,
 * 20 s at most). The killed run's file lock is released unless `leaveLock` (a test that looks at
 * it, or a PostgreSQL state, whose lock ends with the dead run's connection).
 */
export async function killApplyWhen(
  dir: string,
  env: Record<string, string>,
  reached: () => Promise<boolean>,
  command: string[] = ["apply", "-y"],
  leaveLock = false,
): Promise<void> {
  const child = spawn(process.execPath, [CLI, ...command], {
    cwd: dir,
    env: { ...process.env, AGENTS_DEBUG: "", NO_COLOR: "1", ...env },
    stdio: "ignore",
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  try {
    for (let i = 0; i < 800 && !(await reached()); i++) await new Promise((r) => setTimeout(r, 25));
  } finally {
    child.kill("SIGKILL");
  }
  expect(await exited, "the CLI was killed").toBeNull();
  if (leaveLock) return;
  const statePath = join(dir, "agents.state.json");
  const lock = JSON.parse(await fs.readFile(`${statePath}.lock`, "utf8")) as { id: string };
  await forceUnlock(statePath, lock.id);
}

/** How many calls the simulator holds (a `hold` fault) right now. */
export const held = async (sim: RunningSim) =>
  ((await (await fetch(`${sim.origin}/_sim/held`)).json()) as { held: number }).held;

/** `agents apply -y` (or `command`) in `dir`, killed while the simulator holds one of its calls. */
export async function killApplyWhileHeld(
  sim: RunningSim,
  dir: string,
  env: Record<string, string>,
  command?: string[],
) {
  await killApplyWhen(dir, env, async () => (await held(sim)) > 0, command);
  const { released } = (await (await fetch(`${sim.origin}/_sim/release`, { method: "POST" })).json()) as {
    released: number;
  };
  expect(released, "the CLI was killed while a call was held").toBeGreaterThan(0);
}

/**
 * `agents destroy -y` killed while its first `DELETE /files/…` is held: the object an upload
 * belongs to is already removed, the upload not yet (the faults are cleared afterwards).
 */
export async function killDestroyBeforeFileDelete(sim: RunningSim, dir: string, env: Record<string, string>) {
  await setFaults(sim, {
    rules: [{ method: "DELETE", path: "/files/", repeat: true, action: { type: "hold" } }],
  });
  await killApplyWhileHeld(sim, dir, env, ["destroy", "-y"]);
  await setFaults(sim, {});
}
