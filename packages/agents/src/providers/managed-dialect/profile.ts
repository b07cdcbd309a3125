// What distinguishes provider_c from provider_d inside the shared Managed-Agents dialect, as
// data. Handlers read the profile; they never branch on a provider name.
import type { AgentDialect } from "./agent.js";

export interface DialectProfile {
  agent: AgentDialect;
  pageSize: number;
  /**
   * The list endpoints of environments, vaults, memory stores, agents and deployments return the
   * same objects as their GETs, so refresh may read many resources from a few pages.
   */
  listsShowFullObjects: boolean;
  /** "patch": upsert + null for dropped keys; "replace": send the full declared map. */
  metadataUpdate: "patch" | "replace";
  agentRemoval: "archive" | "delete";
  memoryPreconditions: boolean;
  memoryBatchCreate: boolean;
  /** Memory lists accept `view=basic|full`. */
  memoryListView: boolean;
  vaultInPlaceUpdate: boolean;
  injectionLocation: boolean;
  agentVersionRetries: number;
}

/** The wire decisions a profile is made of, under the names each provider's wire-decisions.ts exports. */
export interface DialectWireDecisions {
  BUILTIN_TOOLSET_TYPE: string;
  MODEL_FORM: AgentDialect["modelForm"];
  ROSTER_FORM: AgentDialect["rosterForm"];
  OFFICIAL_SKILL_TYPE: string;
  MOUNT_ROOT: string;
  PAGE_SIZE: number;
  LISTS_SHOW_FULL_OBJECTS: boolean;
  METADATA_UPDATE: DialectProfile["metadataUpdate"];
}

/** A provider's profile: its wire decisions, plus how it behaves where the dialect leaves a choice. */
export function dialectProfile(
  provider: AgentDialect["provider"],
  wire: DialectWireDecisions,
  behaviour: Omit<DialectProfile, "agent" | "pageSize" | "listsShowFullObjects" | "metadataUpdate"> & {
    gitRepositories: boolean;
  },
): DialectProfile {
  const { gitRepositories, ...rest } = behaviour;
  return {
    agent: {
      provider,
      toolsetType: wire.BUILTIN_TOOLSET_TYPE,
      modelForm: wire.MODEL_FORM,
      rosterForm: wire.ROSTER_FORM,
      officialSkillType: wire.OFFICIAL_SKILL_TYPE,
      mountRoot: wire.MOUNT_ROOT,
      gitRepositories,
    },
    pageSize: wire.PAGE_SIZE,
    listsShowFullObjects: wire.LISTS_SHOW_FULL_OBJECTS,
    metadataUpdate: wire.METADATA_UPDATE,
    ...rest,
  };
}
