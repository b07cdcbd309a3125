// provider_d's place in the shared Managed-Agents dialect, as data.
import { str } from "../common/handler-kit.js";
import type { EnvironmentNaming } from "../managed-dialect/handlers/environments.js";
import { type DialectProfile, dialectProfile } from "../managed-dialect/profile.js";
import { isOwnName, nameAttempts, normalizeEnvironmentName } from "./environment-names.js";
import * as wire from "./wire-decisions.js";

export const providerDProfile: DialectProfile = dialectProfile("provider_d", wire, {
  gitRepositories: false,
  agentRemoval: "delete",
  memoryPreconditions: false,
  memoryBatchCreate: true,
  memoryListView: false,
  vaultInPlaceUpdate: false,
  injectionLocation: false,
  agentVersionRetries: 2,
});

const base = (declared: string | undefined, logical: string) => normalizeEnvironmentName(declared || logical);

/** Strict names: normalized, and a taken name retries with `-1`, `-2`, … (update sends the base). */
export const providerDEnvironmentNaming: EnvironmentNaming = {
  attempts: (spec, logical) => nameAttempts(base(str(spec.name), logical)),
  updateName: (spec, logical, current) => {
    const wanted = base(str(spec.name), logical);
    // Keep a suffix the create needed: renaming back to a taken name would only conflict again.
    return current !== undefined && isOwnName(current, wanted) ? current : wanted;
  },
  isDefault: (remote, logical, declared) => isOwnName(remote, base(declared, logical)),
};
