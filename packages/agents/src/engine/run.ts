// `agents run`: starts one run of an applied deployment now, through its handler's `run` hook
// (a native run where the provider has deployments, the session an emulated one sends).
// Nothing here writes to the terminal.
import { parseAddress } from "../model/address.js";
import type { RunResult } from "../providers/types.js";
import { type ResourceState, StateError } from "../state/types.js";
import { createRuntime, type EngineOptions, withState } from "./api.js";

interface DeploymentRun extends RunResult {
  address: string;
  provider: string;
  /** The deployment's remote id (a local id for an emulated deployment). */
  deployment_id: string;
}

/**
 * Runs the deployment named by `target`: a full address (`provider_c.deployments["nightly"]`) or
 * the logical name under `deployments:`. It must have been applied: the handler gets the id and
 * last-applied record from state. Holds the state lock, so a run never races an apply that is
 * replacing the deployment, but never writes state (a run is not a resource).
 */
export async function runDeployment(options: EngineOptions, target: string): Promise<DeploymentRun> {
  return withState(
    options,
    async (store, project) => {
      const runtime = createRuntime({ ...options, project });
      const resources = store.state.resources;
      const entry = findApplied(
        options,
        resources,
        target,
        "deployments",
        "agents run starts deployments only",
      );
      const handler = runtime.requireHandler(entry.provider, "deployments", entry.address);
      if (!handler.run)
        throw new StateError(`${entry.address}: ${entry.provider} cannot start a deployment run`);
      const lookup = (address: string) => {
        const r = resources[address];
        return r ? { id: r.id, extra: r.extra } : undefined;
      };
      const ctx = runtime.context(entry, lookup, options.signal ?? new AbortController().signal, () => {});
      const result = await handler.run(ctx, entry.id, {
        id: entry.id,
        spec: entry.spec,
        ...(entry.extra ? { extra: entry.extra } : {}),
        ...(entry.version !== undefined ? { version: entry.version } : {}),
      });
      return {
        address: entry.address,
        provider: entry.provider,
        deployment_id: entry.id,
        ...(result.run_id ? { run_id: result.run_id } : {}),
        ...(result.session_id ? { session_id: result.session_id } : {}),
      };
    },
    options.command ?? "agents run",
  );
}

/**
 * The state entry of kind `kind` that `target` names: a full address or a logical name. Fails
 * with the fix when it is declared but not applied, or lists what is applied when it is unknown.
 */
export function findApplied(
  options: EngineOptions,
  resources: Record<string, ResourceState>,
  target: string,
  kind: RunnableKind,
  onlyWhat: string,
): ResourceState {
  const byAddress = target.includes("[");
  if (byAddress) {
    const parsed = parseAddress(target);
    if (!parsed.ok) throw new StateError(parsed.error);
    if (parsed.value.kind !== kind) throw new StateError(`${target} is not ${KIND_NOUN[kind]}; ${onlyWhat}`);
  }
  const matches = (r: { address: string; kind: string; name: string }) =>
    r.kind === kind && (byAddress ? r.address === target : r.name === target);
  const entry = Object.values(resources).find(matches);
  if (entry) return entry;
  const declared = options.project.desired.find(matches);
  const command = options.command ?? "agents run";
  if (declared)
    throw new StateError(
      `${declared.address} is declared but not applied yet; run agents apply first, then ${command}`,
    );
  const known = Object.values(resources)
    .filter((r) => r.kind === kind)
    .map((r) => r.address)
    .sort();
  const singular = kind === "deployments" ? "deployment" : "agent";
  throw new StateError(
    `no ${singular} ${target} in ${options.project.configPath} or its state${
      known.length ? ` (applied ${kind}: ${known.join(", ")})` : ` (no ${singular} has been applied)`
    }`,
  );
}

type RunnableKind = "deployments" | "agents";
const KIND_NOUN: Record<RunnableKind, string> = { deployments: "a deployment", agents: "an agent" };
