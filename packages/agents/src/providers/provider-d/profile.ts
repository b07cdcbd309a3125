// provider_d's place in the shared Managed-Agents dialect, as data.
import { str } from "../common/handler-kit.js";
import type { EnvironmentNaming } from "../managed-dialect/handlers/environments.js";
import type { DialectProfile } from "../managed-dialect/profile.js";
import { isOwnName, nameAttempts, normalizeEnvironmentName } from "./environment-names.js";
import {
  BUILTIN_TOOLSET_TYPE,
  LISTS_SHOW_FULL_OBJECTS,
  METADATA_UPDATE,
  MODEL_FORM,
  MOUNT_ROOT,
  OFFICIAL_SKILL_TYPE,
  PAGE_SIZE,
  ROSTER_FORM,
} from "./wire-decisions.js";

export const providerDProfile: DialectProfile = {
  agent: {
    provider: "provider_d",
    toolsetType: BUILTIN_TOOLSET_TYPE,
    modelForm: MODEL_FORM,
    rosterForm: ROSTER_FORM,
    officialSkillType: OFFICIAL_SKILL_TYPE,
    mountRoot: MOUNT_ROOT,
    gitRepositories: false,
  },
  pageSize: PAGE_SIZE,
  listsShowFullObjects: LISTS_SHOW_FULL_OBJECTS,
  metadataUpdate: METADATA_UPDATE,
  agentRemoval: "delete",
  memoryPreconditions: false,
  memoryBatchCreate: true,
  memoryListView: false,
  vaultInPlaceUpdate: false,
  injectionLocation: false,
  agentVersionRetries: 2,
};

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
