// Which providers keep deployments remotely (so they can be read, paused and unpaused) and where.
// Data per provider, so the engine never branches on a provider's name. provider_d's deployments
// are emulated: nothing exists remotely until a run sends its session.

export interface DeploymentControls {
  get(id: string): string;
  pause(id: string): string;
  unpause(id: string): string;
}

const native: DeploymentControls = {
  get: (id) => `/deployments/${id}`,
  pause: (id) => `/deployments/${id}/pause`,
  unpause: (id) => `/deployments/${id}/unpause`,
};

export const DEPLOYMENT_CONTROLS: Record<string, DeploymentControls> = {
  provider_a: native,
  provider_b: native,
  provider_c: native,
};
