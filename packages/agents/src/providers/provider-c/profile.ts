// provider_c's place in the shared Managed-Agents dialect, as data.
import { str } from "../common/handler-kit.js";
import type { EnvironmentNaming } from "../managed-dialect/handlers/environments.js";
import type { DialectProfile } from "../managed-dialect/profile.js";
import {
  AGENT_VERSION_RETRIES,
  BUILTIN_TOOLSET_TYPE,
  LISTS_SHOW_FULL_OBJECTS,
  METADATA_UPDATE,
  MODEL_FORM,
  MOUNT_ROOT,
  OFFICIAL_SKILL_TYPE,
  PAGE_SIZE,
  ROSTER_FORM,
} from "./wire-decisions.js";

export const providerCProfile: DialectProfile = {
  agent: {
    provider: "provider_c",
    toolsetType: BUILTIN_TOOLSET_TYPE,
    modelForm: MODEL_FORM,
    rosterForm: ROSTER_FORM,
    officialSkillType: OFFICIAL_SKILL_TYPE,
    mountRoot: MOUNT_ROOT,
    gitRepositories: true,
  },
  pageSize: PAGE_SIZE,
  listsShowFullObjects: LISTS_SHOW_FULL_OBJECTS,
  metadataUpdate: METADATA_UPDATE,
  agentRemoval: "archive",
  memoryPreconditions: true,
  memoryBatchCreate: false,
  memoryListView: true,
  vaultInPlaceUpdate: true,
  injectionLocation: true,
  agentVersionRetries: AGENT_VERSION_RETRIES,
};

/** Names are free-form and not unique: the declared name, else the logical name. */
export const providerCEnvironmentNaming: EnvironmentNaming = {
  attempts: (spec, logical) => [str(spec.name) || logical],
  updateName: (spec, logical) => str(spec.name) || logical,
  isDefault: (remote, logical, declared) => remote === (declared || logical),
};
