import { createSim, type RunningSim, type SimOptions } from "./core/sim.js";
import { isSimName, loadDefinition, SIM_NAMES, type SimName } from "./registry.js";

export { SimClock } from "./core/clock.js";
export type { FaultAction, FaultConfig, FaultRule } from "./core/faults.js";
export { FaultInjector } from "./core/faults.js";
export { fileBytes, readMultipart } from "./core/multipart.js";
export { IdGenerator, Prng } from "./core/prng.js";
export type { BucketReading, RateLimitConfig, RateLimitHeaders } from "./core/rate-limit.js";
export type { LogEntry } from "./core/request-log.js";
export type { RunningSim, SimContext, SimDefinition, SimOptions } from "./core/sim.js";
export { createSim } from "./core/sim.js";
export { type AgentScriptSettings, agentScript } from "./kit/agent-turn.js";
export { isSimName, SIM_NAMES, type SimName } from "./registry.js";

/** Starts one simulator on loopback (port 0 = any free port). */
export async function startSim(name: SimName, opts: SimOptions = {}): Promise<RunningSim> {
  if (!isSimName(name)) throw new Error(`unknown simulator "${name}"; known: ${SIM_NAMES.join(", ")}`);
  return createSim(await loadDefinition(name), opts);
}

/**
 * Starts several simulators on consecutive ports from `port` (or any free ports when 0), and
 * closes the ones already started if a later one fails, so nothing is left listening.
 */
export async function startSims(names: readonly SimName[], opts: SimOptions = {}): Promise<RunningSim[]> {
  const started: RunningSim[] = [];
  try {
    for (const [i, name] of names.entries()) {
      const port = opts.port ? opts.port + i : 0;
      started.push(await startSim(name, { ...opts, port }));
    }
    return started;
  } catch (e) {
    await Promise.all(started.map((s) => s.close()));
    throw e;
  }
}
