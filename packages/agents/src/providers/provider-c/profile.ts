// provider_c's place in the shared Managed-Agents dialect, as data.
import { str } from "../common/handler-kit.js";
import type { EnvironmentNaming } from "../managed-dialect/handlers/environments.js";
import { type DialectProfile, dialectProfile } from "../managed-dialect/profile.js";
import * as wire from "./wire-decisions.js";

export const providerCProfile: DialectProfile = dialectProfile("provider_c", wire, {
  gitRepositories: true,
  agentRemoval: "archive",
  memoryPreconditions: true,
  memoryBatchCreate: false,
  memoryListView: true,
  vaultInPlaceUpdate: true,
  injectionLocation: true,
  agentVersionRetries: wire.AGENT_VERSION_RETRIES,
});

/** Names are free-form and not unique: the declared name, else the logical name. */
export const providerCEnvironmentNaming: EnvironmentNaming = {
  attempts: (spec, logical) => [str(spec.name) || logical],
  updateName: (spec, logical) => str(spec.name) || logical,
  isDefault: (remote, logical, declared) => remote === (declared || logical),
};
