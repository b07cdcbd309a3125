// The narrow provider contract. The engine core (plan, apply, state) only ever talks to a
// provider through these types, so a provider's facts reach it as data or through calls here,
// never through a branch on the provider's name.
import type { HttpClient, HttpClientFactory } from "./http.js";

// One list of providers and kinds for the whole package (the model owns them).
export { KINDS, type Kind } from "../model/kinds.js";
export { PROVIDER_NAMES, type ProviderName } from "../model/provider-names.js";

import type { z } from "zod";
import type { ProviderCapabilities } from "../model/capabilities.js";
import type { Kind } from "../model/kinds.js";
import type { ProviderName } from "../model/provider-names.js";

export type Spec = Record<string, unknown>;

/** Ownership metadata stamped on every created resource (`agents.project` / `agents.resource`). */
export interface Owner {
  project: string;
  /** The resource address, e.g. `provider_c.agents["writer"]`. */
  resource: string;
}
export const OWNER_PROJECT_KEY = "agents.project";
export const OWNER_RESOURCE_KEY = "agents.resource";

export interface RemoteObject {
  /** Remote id (opaque). Emulated resources may use a synthetic local id. */
  id: string;
  /**
   * What the remote currently holds, mapped back to the declared spec's shape (fromWire).
   * Drift is computed only over the top-level keys present here: a field the provider cannot
   * show back (secrets, uploaded bytes) must be omitted rather than guessed.
   */
  spec: Spec;
  owner?: Owner;
  archived?: boolean;
  version?: number | string;
  /** Provider ids the engine keeps in state for later calls (credential ids, memory ids, ...). */
  extra?: Record<string, unknown>;
  /**
   * Top-level fields of `spec` the last apply could not set yet (provider_b's default memory
   * store, which the provider creates only with the first Forward Session): a difference there is
   * what the file asks for, not a change made outside agents.
   */
  notYetApplied?: string[];
}

/**
 * An upload journaled before its request is sent (provider_a files carry no metadata, so the
 * journal is the only way a later run can tell the project's own upload from anyone else's).
 */
export interface UploadIntent {
  /** The filename sent: unique where the handler may choose it (skill packages). */
  filename: string;
  size: number;
  /** When the intent was written. */
  since: string;
  /**
   * Files that already carried this filename before the upload (only where the filename is not
   * unique: declared files keep their basename): those are never taken for this upload.
   */
  before?: string[];
  /** What the upload carries, for the handler that finds it again (a skill's name). */
  carries?: string;
  /** The digest of what the upload carries, where the handler compares it (a skill's content). */
  digest?: string;
}

export interface HandlerContext {
  /** The provider session's client: base URL, auth headers and error parsing already bound. */
  http: HttpClient;
  owner: Owner;
  /** Remote id of a resource this one depends on (same provider), by kind and logical name. */
  resolve(kind: Kind, name: string): string;
  /** Extra ids recorded for a dependency (undefined when it has none). */
  resolveExtra(kind: Kind, name: string): Record<string, unknown> | undefined;
  /** Folder of agents.yaml: relative file and skill paths resolve against it. */
  configDir: string;
  signal: AbortSignal;
  /** A non-fatal note for the user (printed with the resource's progress line). */
  warn(message: string): void;
  /**
   * `agents destroy --cascade`: a removal the provider refuses because runtime objects the
   * project does not declare still hold the resource (sessions using an environment) may end
   * those first. Unset, the removal fails and names them. Never widens what the config decides:
   * it does not override `default_memory_store.delete_on_destroy`, and it never touches other
   * declared or external resources.
   */
  cascade?: boolean;
  /**
   * Records a follow-up task in state before it resolves, so it survives a crash. Used by
   * provider_b's default memory store: its id is captured before the Template is archived and the
   * Identity deleted, and the permanent delete runs after them (spec: Default memory store,
   * destroy rules 1–3). Only a destroy's preflight can defer; anywhere else it rejects.
   */
  defer(task: DeferredTask): Promise<void>;
  /**
   * Further API roots of the same provider under the same credential, by name (provider_b:
   * `forward`, beside the Managed API that `http` speaks to). Absent for one-root providers.
   */
  apis?: Readonly<Record<string, HttpClient>>;
  /**
   * Journals an upload in state before its request is sent (apply only). A run that dies
   * before the result is recorded leaves the intent, and the next run finds the file again.
   */
  journalUpload?(intent: UploadIntent): Promise<void>;
  /**
   * Uploads an interrupted earlier run journaled for this resource and never recorded: a
   * handler's `findOwned` and `read` of an adopted resource look for them.
   */
  leftoverUploads?: readonly UploadIntent[];
}

/** Work a destroy must finish after the ordinary removals; kept in state until done. */
export interface DeferredTask {
  /** Key into `ProviderAdapter.deferred`. */
  type: string;
  /** Stable id, so deferring the same work twice keeps one record. */
  key: string;
  /** Plain JSON the task needs (remote ids only, never secrets). */
  data: Record<string, unknown>;
  /** One line for the partial-destroy report. */
  description: string;
}

/** Runs a deferred task; throwing leaves it in state and reports a partial destroy. */
export interface DeferredHandler {
  run(ctx: HandlerContext, data: Record<string, unknown>): Promise<void>;
}

/** What `list` gets: the provider session and nothing about any one declared resource. */
export type ListContext = Pick<HandlerContext, "http" | "apis" | "signal" | "warn" | "configDir">;

/** What a handler needs to compute a comparable desired spec (no network). */
export interface DesiredContext {
  configDir: string;
  /**
   * The resource's logical name (its key in agents.yaml), given by plan and apply. A handler whose
   * remote name derives from it compares that name, so a renamed key (`agents state mv`) plans the
   * remote rename apply makes. Sync leaves it out: it compares the declaration as written.
   */
  name?: string;
}

export interface KindHandler {
  /** Creates the resource, carrying ownership metadata. */
  create(ctx: HandlerContext, spec: Spec): Promise<RemoteObject>;
  /**
   * Reads the resource; resolves "gone" on 404 or archived, never throws for that. `listed` is the
   * object `listForRead` returned for this id, when refresh listed the kind, or the promise of it
   * while the listing is still walking its pages (undefined when the list did not show the id):
   * read maps it instead of fetching it again, and may start the calls the list cannot answer
   * before it settles.
   */
  read(ctx: HandlerContext, id: string, prior?: PriorState, listed?: unknown): Promise<RemoteObject | "gone">;
  /**
   * Plan from lists: the objects with these ids, walked from the kind's list endpoint (paged,
   * stopping once every id is seen), each exactly as a GET returns it. Refresh uses it when it
   * reads several resources of one kind, so a wide plan costs a few pages instead of one GET per
   * resource. An id it does not return is read with `read` alone (that is what decides "gone").
   * Leave it out where the list shows less than a GET.
   */
  listForRead?(ctx: ListContext, ids: ReadonlySet<string>): Promise<ReadonlyMap<string, unknown>>;
  /**
   * Plan from lists: `read` starts calls the list cannot answer before it awaits `listed` (e.g. a
   * vault's credentials), so refresh calls it while the list is walked. Without it, refresh calls
   * `read` once the listing has settled, with the listed object itself: a wide plan then holds
   * no read's context and calls in memory while the pages are on the wire.
   */
  readsWhileListing?: boolean;
  /** In-place update. Without it every change is a replacement. */
  update?(ctx: HandlerContext, id: string, spec: Spec, prior: PriorState): Promise<RemoteObject>;
  /** Deletes or archives. Already gone counts as success. */
  remove(ctx: HandlerContext, id: string, prior?: PriorState): Promise<void>;
  /**
   * Set where the provider has no delete for this kind (why, e.g. "provider_d cannot delete
   * skills"): `remove` only stops managing the object, which stays on the provider. The plan says
   * so and apply reports the removal as "released from state", never "deleted".
   */
  cannotDelete?: string;
  /**
   * Finds a resource this project already owns (adoption after a crash or a conflict). `exclude`:
   * ids to pass over (the recorded object, when the create half of a replacement is looked for:
   * both carry the same owner). Kinds that replace create-before-destroy must honour it.
   */
  findOwned?(
    ctx: HandlerContext,
    owner: Owner,
    exclude?: ReadonlySet<string>,
  ): Promise<RemoteObject | undefined>;
  /**
   * Kinds that cannot carry ownership metadata but whose create takes a name unique on the
   * provider (provider_b skills and channels): the live object holding the name this declaration's
   * create would take. The engine adopts it only when an earlier run journaled a create of this
   * address and never recorded its answer (that create made it); otherwise a conflict on the
   * name is a foreign object and is reported with the way to import it.
   */
  findNamed?(ctx: HandlerContext, spec: Spec): Promise<RemoteObject | undefined>;
  /**
   * Finishes an adopted object that an interrupted create left half-made (provider_b: a vault
   * whose credentials were not all added), adding what it lacks and replacing nothing. Used on
   * adoption by kinds without `update`; without it an adopted object is recorded as found.
   */
  complete?(ctx: HandlerContext, id: string, spec: Spec, found: RemoteObject): Promise<RemoteObject>;
  /**
   * Every object of this kind the account lists, owned by any project or by none, archived ones
   * included where the provider can list them (`agents sync` reverse-maps from this). Objects
   * owned by `project` carry their full spec; others may carry less (no per-object detail reads).
   * `owner.resource` is "" when an object has `agents.project` but no `agents.resource`.
   * Without it the kind is left out of sync.
   */
  list?(ctx: ListContext, project: string): Promise<RemoteObject[]>;
  /**
   * What only the declaration can select on one listed object, in declared shape
   * (a memory store's seeds: each declared key with the content the provider now holds there).
   * Sync lays it over the listed spec; the agents' own memories are never part of it.
   */
  readDeclared?(ctx: ListContext, id: string, declared: Spec): Promise<Spec>;
  /**
   * Turns a declared spec into the spec the engine compares and records, e.g. adds a content
   * digest of a local file so an edited file shows as a change. Pure apart from reading files.
   */
  desired?(spec: Spec, ctx: DesiredContext): Promise<Spec> | Spec;
  /**
   * Kinds whose in-place update this resource must follow with an update of its own, because it
   * pins their version (provider_a agents pin each custom skill's version): plan shows it.
   */
  followsUpdatesOf?: Kind[];
  /**
   * Top-level fields whose removal (a value declared before, none now) cannot be sent as an
   * update and so forces replacement, while changing their value stays in place.
   */
  replaceOnRemoval?: string[];
  /** Field paths (dot-separated, `*` for any key or array index) whose change forces replacement. */
  replaceOn?: string[];
  /** Field paths holding secrets: masked in plans, stored only as keyed hashes in state. */
  sensitive?: string[];
  /** Replacement creates the new resource before deleting the old one. */
  createBeforeDestroy?: boolean;
  /** Resources of this kind that exist only locally (emulated): no remote read is possible. */
  localOnly?: boolean;
  /**
   * Called for every resource a destroy will remove, before the first
   * removal. A throw aborts the destroy with nothing deleted (spec: Default memory store, destroy
   * rule 4); the handler may `ctx.defer` work that must outlive the resource.
   */
  preflightRemove?(ctx: HandlerContext, id: string, prior: PriorState): Promise<void>;
  /**
   * Settles uploads an interrupted run journaled for this resource: each one found remotely whose
   * id is not in `keep` (every id state records, and the step's result) is deleted. Called by
   * apply before the resource's step records its result.
   */
  settleUploads?(
    ctx: HandlerContext,
    uploads: readonly UploadIntent[],
    keep: ReadonlySet<string>,
  ): Promise<void>;
}

/** The handler of `agents`: the kind handler, plus sessions where the provider lets the tool start them. */
export interface AgentHandler extends KindHandler {
  /**
   * Agents whose provider has sessions the tool can start directly (provider_b Managed agents):
   * creates one session of the applied agent `id`, sending `input.message` first.
   */
  startSession?(
    ctx: HandlerContext,
    id: string,
    prior: PriorState,
    input: SessionInput,
  ): Promise<SessionStart>;
}

/** The handler of `deployments`: the kind handler, plus starting a run now (`agents run`). */
export interface DeploymentHandler extends KindHandler {
  /** Starts one run now (native run, or the session an emulated deployment sends). */
  run?(ctx: HandlerContext, id: string, prior: PriorState): Promise<RunResult>;
}

/** The handler type of each kind: the kinds with a verb of their own have their own type. */
export type HandlerOf<K extends Kind> = K extends "agents"
  ? AgentHandler
  : K extends "deployments"
    ? DeploymentHandler
    : KindHandler;

export type KindHandlers = { [K in Kind]?: HandlerOf<K> };

/** What `agents session start` hands a handler. */
export interface SessionInput {
  /**
   * The agent as declared, `${VAR}`s resolved: environment variables and repository tokens are
   * held in state only as keyed hashes, so a session is built from the declaration. Never stored.
   */
  spec: Spec;
  /** First user message, sent once the session exists. */
  message?: string;
  title?: string;
}

/** A started session, and the id of the first message's event when one was sent. */
export interface SessionStart {
  session_id: string;
  event_id?: string;
}

/** What a deployment run reports: a run id where the provider has runs, and the session it started. */
export interface RunResult {
  run_id?: string;
  session_id?: string;
}

/** What the engine hands back to a handler about the last apply. */
export interface PriorState {
  id: string;
  /** Last-applied spec, secrets replaced by keyed hashes. */
  spec: Spec;
  extra?: Record<string, unknown>;
  version?: number | string;
}

export interface ProviderSession {
  http: HttpClient;
  /** Further API roots under the same credential (see `HandlerContext.apis`). */
  apis?: Readonly<Record<string, HttpClient>>;
}

export interface ProviderAdapter {
  name: ProviderName;
  /**
   * Binds a provider block from agents.yaml (secrets already resolved) to an HTTP client.
   * `baseUrlOverride` lets tests and demos point the adapter at a simulator.
   */
  connect(block: Record<string, unknown>, http: HttpClientFactory, baseUrlOverride?: string): ProviderSession;
  kinds: KindHandlers;
  /**
   * Facts a handler needs from outside its own declaration, computed
   * from the whole config without network (provider_b: the API domain of a resource used by a
   * Forward agent, the default identity, the top-level Files a Template inherits). The engine
   * merges the result into the node's spec under the key `derived` before `desired()` and every
   * handler call, so a change of domain shows in the plan.
   */
  derive?(config: Spec, kind: Kind, name: string): Spec | undefined;
  /**
   * One cheap authenticated read (e.g. list one agent) that fails when the key is wrong or the
   * base URL unreachable. Plan runs it for a provider it would otherwise not read at all.
   */
  probe?(http: HttpClient, signal: AbortSignal): Promise<void>;
  /** Runners of deferred tasks by `DeferredTask.type`; destroy resumes them. */
  deferred?: Record<string, DeferredHandler>;
}

/** What `agents init` writes for a provider: its block, its `.env.example` lines, a model. */
export interface ProviderStarter {
  /** Lines under `providers.<name>:` */
  block: string[];
  /** `.env.example` lines. */
  env: string[];
  model: string;
}

/**
 * One refusal a provider's handlers (or its API) make at apply for a declaration validate can
 * judge without the network, with the validate rule that reports it first. Listed per provider
 * in its definition, so a test can prove both halves against the simulator and the docs can show
 * them side by side (docs/providers.md, "Apply-time refusals").
 */
export interface ApplyRefusal {
  /** Stable id: `<provider>.<what>`. */
  id: string;
  kind: Kind;
  /** A fragment of the error apply reports, as the handler or the provider's API words it. */
  message: string;
  /** The diagnostic code of the validate rule that reports the same declaration. */
  rule: string;
}

/**
 * Everything the build knows about one provider, in one place (`providers/<p>/definition.ts`):
 * the schema of its `providers.<name>` block, its capabilities (data the validator and the
 * engine read), the starter `agents init` writes, and the adapter that talks to it.
 */
/** A provider as agents.yaml sees it: the block's schema, the capabilities, the starter. */
export interface ProviderSpec {
  name: ProviderName;
  config: z.ZodType;
  capabilities: ProviderCapabilities;
  starter: ProviderStarter;
}

/** A provider, whole: its spec and the adapter that speaks its wire. */
export interface ProviderDefinition extends ProviderSpec {
  adapter: ProviderAdapter;
  /** Every refusal at apply that validate can foresee, with the rule that does (may be empty). */
  applyRefusals: readonly ApplyRefusal[];
}
