// A plan is data: computed once, shown, saved (`--out`), and applied exactly later. It holds no
// secret: sensitive values appear only as the marker "(sensitive)". Documented in docs/plan-json.md.
import type { Kind, ProviderName, Spec } from "../providers/types.js";

export const PLAN_FORMAT_VERSION = 1;

export type ActionType =
  | "create"
  | "update"
  | "replace"
  | "delete"
  | "adopt"
  | "read"
  | "noop"
  /** An `import:` entry: the remote object `remoteId` is read and recorded (updated first when `changes`). */
  | "import"
  /** A `removed:` entry with `destroy: false`: dropped from state, the remote object stays. */
  | "forget";

/** Every action type, in the order summaries list them. */
export const ACTION_TYPES: readonly ActionType[] = [
  "create",
  "update",
  "replace",
  "delete",
  "adopt",
  "read",
  "noop",
  "import",
  "forget",
];

/** A declared resource after expansion: what the engine plans against. */
export interface DesiredResource {
  address: string;
  kind: Kind;
  name: string;
  provider: ProviderName;
  /** Declared spec with `${VAR}`s resolved (holds real secrets: never printed or saved). */
  spec: Spec;
  /** Declared with an existing remote id (environment_id, identity_id). */
  external?: { id: string; field: string };
  /** Addresses this resource references. */
  dependsOn: string[];
  /** Its `lifecycle:` block (docs/configuration.md#lifecycle); absent when none is declared. */
  lifecycle?: LifecycleRules;
}

/** A declaration's `lifecycle:` rules, as the engine reads them. */
export interface LifecycleRules {
  preventDestroy?: boolean;
  /** Field paths (`*` for any list item or map key) whose changes plan nothing, or every field. */
  ignoreChanges?: readonly string[] | "all";
  /** Overrides the kind's own choice of replacement order (KindHandler.createBeforeDestroy). */
  createBeforeDestroy?: boolean;
}

export interface FieldChange {
  path: string;
  /** Values are absent when sensitive; `sensitive` then says so. */
  before?: unknown;
  after?: unknown;
  sensitive: boolean;
  forcesReplacement: boolean;
  /** `config`: the file changed; `drift`: the remote changed behind our back. */
  source: "config" | "drift";
}

export interface PlannedAction {
  address: string;
  kind: Kind;
  name: string;
  provider: ProviderName;
  action: ActionType;
  /** Why, in words a user understands. */
  reason: string;
  changes: FieldChange[];
  /** Remote id the action works on (update, replace, delete, adopt, read). */
  remoteId?: string;
  external?: boolean;
  /**
   * delete: the provider cannot delete this kind, so the resource is only released from state and
   * stays on the provider (the reason says why).
   */
  remains?: boolean;
  createBeforeDestroy?: boolean;
  /** replace: asked for with `--replace ADDRESS`, not forced by a change. */
  forced?: true;
  /**
   * A `moved:` entry: the address state records the resource under until this plan is applied
   * (apply renames the entry first; the action then runs on the new address).
   */
  previousAddress?: string;
  /**
   * replace: the new object an interrupted run already created for this replacement (found by
   * ownership, journaled, never recorded): adopted as the replacement instead of creating another.
   */
  adoptId?: string;
  /**
   * delete: further objects of this address an interrupted run left unrecorded (the create half
   * of a replacement), removed with the recorded one.
   */
  strays?: string[];
  /** Addresses that must be done first (forward actions) or, for deletes, after. */
  dependsOn: string[];
  warnings: string[];
}

/**
 * Where a plan made against a state that does not exist yet keeps that state's identity: the hash
 * key its lineage comes with (docs/state.md §Saved plans before the first apply). A symbol, so
 * JSON.stringify never prints it (`plan --json`, the playground's page); only a saved plan file
 * carries it (engine/api.ts writePlanFile).
 */
export const NEW_STATE: unique symbol = Symbol("agents.plan.newState");

/** The identity a state that did not exist at plan time takes when the plan is applied. */
export interface NewStateIdentity {
  /** The state's hash key (hex): with its lineage (`state.lineage`), what apply gives the new state. */
  hashKey: string;
}

export interface Plan {
  /** Only on a plan made against an absent state (see NEW_STATE). */
  [NEW_STATE]?: NewStateIdentity;
  formatVersion: typeof PLAN_FORMAT_VERSION;
  createdAt: string;
  /** Operation the plan was made for. */
  operation: "apply" | "destroy";
  state: {
    lineage: string;
    serial: number;
    /** Which state the plan read (absent in plans made by older builds, and by createPlan alone). */
    backend?: "file" | "postgres";
    /** Where it lives, safe to print: the file's path, or `postgres HOST:PORT/DB schema S workspace "W"`. */
    location?: string;
    /** The project (`agents.project` label) the plan acts for. */
    project?: string;
    /** How many resources that state records (0: an empty state, everything declared is new to it). */
    recorded?: number;
  };
  /** Keyed hash of the expanded desired resources: a changed config or secret invalidates the plan. */
  configHash: string;
  scope: { providers?: string[]; targets?: string[]; replace?: string[] };
  actions: PlannedAction[];
  summary: Record<ActionType, number>;
  warnings: string[];
  /**
   * Refresh statistics: remote reads made and how many failed. `errors` names each read that
   * failed (a resource address, or a provider whose credential check failed): such a plan is
   * incomplete, `agents plan` exits 1 and apply refuses it.
   */
  refresh: { reads: number; failed: number; errors?: RefreshError[] };
}

export interface RefreshError {
  /** A resource address, or a provider name for the credential check of a fresh state. */
  target: string;
  message: string;
}

/** The plan could not read part of the remote: it must never be taken for "no changes". */
export function refreshErrors(plan: Plan): RefreshError[] {
  return plan.refresh?.errors ?? [];
}

export function incompleteMessage(plan: Plan): string {
  const errors = refreshErrors(plan);
  return (
    `the plan is incomplete: could not read the remote for ${errors.length} ${errors.length === 1 ? "resource" : "resources"}:\n` +
    errors.map((e) => `  ${e.target}: ${e.message}`).join("\n") +
    "\nNothing was compared for these, so the plan cannot say whether they match. Fix the cause (credentials, base URL, provider outage) and run the command again."
  );
}

export class PlanError extends Error {
  override readonly name = "PlanError";
  constructor(
    message: string,
    readonly code: string,
    readonly address?: string,
  ) {
    super(message);
  }
}

/** Whether applying the plan changes anything: an action, or a state entry it moves. */
export function hasChanges(plan: Plan): boolean {
  return plan.actions.some((a) => a.action !== "noop" || a.previousAddress !== undefined);
}

/** Actions that take a resource out of state (a delete, a forget): they run after what uses them. */
export function isRemoval(action: Pick<PlannedAction, "action">): boolean {
  return action.action === "delete" || action.action === "forget";
}
