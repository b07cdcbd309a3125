// `agents deployment list|get|pause|unpause`: applied deployments, read and switched remotely.
// Nothing here takes the state lock or writes the state (pausing is not a declared change).
import { DEPLOYMENT_CONTROLS } from "../providers/deployment-controls.js";
import type { ProviderName } from "../providers/types.js";
import { type ResourceState, StateError } from "../state/types.js";
import { createRuntime, type EngineOptions, readProjectState } from "./api.js";
import { findApplied } from "./run.js";

export interface DeploymentInfo {
  address: string;
  provider: string;
  id: string;
  /** Read from the provider (`--remote`, get, pause, unpause); absent for emulated deployments. */
  status?: string;
  remote?: Record<string, unknown>;
}

const HAVE = Object.keys(DEPLOYMENT_CONTROLS).join(", ");

async function read(options: EngineOptions, entry: ResourceState): Promise<DeploymentInfo> {
  const controls = DEPLOYMENT_CONTROLS[entry.provider];
  if (!controls) return { address: entry.address, provider: entry.provider, id: entry.id };
  const http = createRuntime(options).session(entry.provider as ProviderName).http;
  const res = await http.request<Record<string, unknown>>({ method: "GET", path: controls.get(entry.id) });
  return {
    address: entry.address,
    provider: entry.provider,
    id: entry.id,
    ...(typeof res.body?.status === "string" ? { status: res.body.status } : {}),
    remote: res.body,
  };
}

/** The applied deployments (from state); with `remote`, each read from its provider. */
export async function listDeployments(
  options: EngineOptions,
  o: { remote?: boolean } = {},
): Promise<DeploymentInfo[]> {
  const { state } = await readProjectState(options);
  const entries = Object.values(state.resources)
    .filter((r) => r.kind === "deployments")
    .sort((a, b) => a.address.localeCompare(b.address));
  if (!o.remote) return entries.map((e) => ({ address: e.address, provider: e.provider, id: e.id }));
  return Promise.all(entries.map((e) => read(options, e)));
}

async function applied(options: EngineOptions, target: string): Promise<ResourceState> {
  const { state } = await readProjectState(options);
  const command = options.command ?? "agents deployment";
  return findApplied(
    { ...options, command },
    state.resources,
    target,
    "deployments",
    `${command} acts on deployments only`,
  );
}

export async function getDeployment(options: EngineOptions, target: string): Promise<DeploymentInfo> {
  return read(options, await applied(options, target));
}

/** Pauses (or unpauses) a deployment where the provider keeps deployments remotely. */
export async function setDeploymentPaused(
  options: EngineOptions,
  target: string,
  paused: boolean,
): Promise<DeploymentInfo> {
  const entry = await applied(options, target);
  const controls = DEPLOYMENT_CONTROLS[entry.provider];
  if (!controls)
    throw new StateError(
      `${entry.address}: ${entry.provider} deployments are emulated (nothing remote to ${paused ? "pause" : "unpause"}); pause and unpause exist on ${HAVE}`,
    );
  const http = createRuntime(options).session(entry.provider as ProviderName).http;
  await http.request({
    method: "POST",
    path: paused ? controls.pause(entry.id) : controls.unpause(entry.id),
    json: {},
  });
  return read(options, entry);
}
