// What provider_a refuses at apply that validate reports first, each with its rule: one by the
// handler, one by the provider's API. test/config/apply-refusals.test.ts proves every row against
// the simulator and validate.
import type { ApplyRefusal } from "../types.js";

export const providerARefusals: readonly ApplyRefusal[] = [
  {
    id: "provider_a.deployment_without_environment",
    kind: "deployments",
    message: "environment_id must not be empty",
    rule: "AGENTS1510",
  },
  {
    id: "provider_a.deployment_with_only_an_outcome",
    kind: "deployments",
    message: "needs at least one user.message or system.message initial event",
    rule: "AGENTS1511",
  },
];
