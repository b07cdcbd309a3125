// `agents test --ephemeral` (docs/testing.md): the tested agents applied as a throw-away project
// with a state of its own, and destroyed again whatever happens to the run.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { apply, destroy, type EngineOptions } from "./api.js";

/** The throw-away project, what it created, and whether all of it is gone again. */
export interface EphemeralOutcome {
  project: string;
  created: number;
  destroyed: boolean;
  error?: string;
}

/**
 * Applies the agents `targets` name (and what they depend on) under a throw-away project name and
 * a state file in a temporary folder, runs `body` against them, and destroys everything that
 * state holds afterwards, also when the apply, the body or the caller's signal stopped early.
 */
export async function withEphemeral<T>(
  options: EngineOptions & { onProgress?(line: string): void },
  agents: readonly string[],
  body: (engine: EngineOptions) => Promise<T>,
): Promise<{ results: T; ephemeral: EphemeralOutcome }> {
  const name = `${options.project.project}-test-${randomBytes(4).toString("hex")}`;
  const dir = mkdtempSync(join(tmpdir(), "agents-test-"));
  const { backend: _backend, ...rest } = options;
  const engine: EngineOptions = {
    ...rest,
    project: { ...options.project, project: name, projectFrom: "AGENTS_PROJECT" },
    statePath: join(dir, "agents.state.json"),
  };
  const addresses = options.project.desired
    .filter((r) => r.kind === "agents" && (agents.includes(r.name) || agents.includes(r.address)))
    .map((r) => r.address);
  const say = (line: string) => options.onProgress?.(line);
  let created = 0;
  const ephemeral: EphemeralOutcome = { project: name, created: 0, destroyed: false };
  let results: T | undefined;
  let failure: unknown;
  try {
    say(`ephemeral: applying ${addresses.join(", ")} as project ${name}`);
    const applied = await apply({
      ...engine,
      targets: addresses,
      command: "agents test --ephemeral",
      confirm: async () => true,
      onEvent: (e) => {
        if (e.type === "done" && e.action === "create") created++;
      },
    });
    if (applied.result && !applied.result.ok)
      throw new Error(
        `ephemeral apply failed: ${applied.result.failed.map((f) => `${f.address}: ${f.message}`).join("; ")}`,
      );
    results = await body(engine);
  } catch (error) {
    failure = error;
  }
  ephemeral.created = created;
  // A fresh signal: the caller's may be the Ctrl-C that ended the run, and the clean-up must still run.
  const { signal: _signal, ...cleanup } = engine;
  try {
    say(`ephemeral: destroying project ${name}`);
    const destroyed = await destroy({
      ...cleanup,
      command: "agents test --ephemeral",
      cascade: true,
      confirm: async () => true,
    });
    ephemeral.destroyed = destroyed.result === undefined || destroyed.result.ok;
    if (!ephemeral.destroyed)
      ephemeral.error = `ephemeral destroy left ${destroyed.result!.failed.map((f) => f.address).join(", ")}; its state is kept in ${dir}`;
  } catch (error) {
    ephemeral.error = `ephemeral destroy failed (${messageOf(error)}); its state is kept in ${dir}`;
  }
  if (ephemeral.destroyed) rmSync(dir, { recursive: true, force: true });
  if (failure !== undefined || results === undefined) {
    const why = failure instanceof Error ? failure : new Error(String(failure));
    if (ephemeral.error) why.message = `${why.message}; ${ephemeral.error}`;
    throw why;
  }
  return { results, ephemeral };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
