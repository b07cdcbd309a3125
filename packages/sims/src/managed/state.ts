import type { SimClock } from "../core/clock.js";
import type { IdGenerator } from "../core/prng.js";
import type { PageLimits } from "./http.js";

/** A stored object, kept exactly as the wire shows it (no internal fields), so GET returns it as is. */
export type Obj = { id: string; type: string; created_at: string; [field: string]: any };

export type IdKind =
  | "environment"
  | "vault"
  | "credential"
  | "file"
  | "skill"
  | "agent"
  | "memory_store"
  | "memory"
  | "memory_version"
  | "deployment"
  | "deployment_run"
  | "session"
  | "session_resource"
  | "session_thread"
  | "event";

/** What differs between the two providers speaking this wire family. */
export interface Dialect {
  name: "provider_c" | "provider_d";
  idPrefix: Record<IdKind, string>;
  /** The builtin toolset type the provider accepts. */
  toolsetType: string;
  metadataUpdate: "patch" | "replace";
  limits: PageLimits;
  /** provider_d: `model` must be an object; a bare string fails. */
  modelObjectOnly: boolean;
  /** provider_d: roster entries must be `{type:"agent", id}` objects. */
  rosterObjectsOnly: boolean;
  credentialTypes: readonly string[];
  /** Kinds with `POST …/archive` (archived objects stay readable, reject updates, hide from lists). */
  archivable: ReadonlySet<string>;
  /** provider_d hard-deletes agents; provider_c only archives them. */
  agentDelete: boolean;
  /** provider_c keeps memory versions and honours `precondition`. */
  memoryVersions: boolean;
  /** Session resource kinds accepted on sessions (and deployments). */
  resourceTypes: readonly string[];
  mountRoot: string;
}

export interface EventStream {
  push(event: Obj): void;
  close(): void;
  /** A frame that is not an event of the history (provider_c's opt-in reply previews). */
  preview?(frame: Record<string, unknown>): void;
  /** Cuts the connection without ending the response (a dropped stream). */
  destroy?(): void;
}

export interface SkillFile {
  path: string;
  content_base64: string;
}

export interface State {
  apiKeys: Set<string>;
  environments: Map<string, Obj>;
  /** provider_d: a deleted environment's name stays reserved until this (simulated) time. */
  reservedNames: Map<string, number>;
  vaults: Map<string, Obj>;
  credentials: Map<string, Obj>;
  /** Write-only credential secrets, by credential id; never rendered, dumped only as sha256. */
  secrets: Map<string, Record<string, string>>;
  /** Fingerprints seeded from a dump without the secrets themselves (dumped back unchanged). */
  seededFingerprints: Map<string, Record<string, string>>;
  files: Map<string, Obj>;
  fileContents: Map<string, string>;
  skills: Map<string, Obj>;
  /** Skill versions keyed `<skill_id>@<version>`. */
  skillVersions: Map<string, Obj>;
  skillFiles: Map<string, SkillFile[]>;
  agents: Map<string, Obj>;
  /** Every version of every agent, oldest first. */
  agentVersions: Map<string, Obj[]>;
  memoryStores: Map<string, Obj>;
  memories: Map<string, Obj>;
  memoryVersions: Map<string, Obj>;
  deployments: Map<string, Obj>;
  deploymentRuns: Map<string, Obj>;
  sessions: Map<string, Obj>;
  sessionEvents: Map<string, Obj[]>;
  sessionThreads: Map<string, Obj>;
  threadEvents: Map<string, Obj[]>;
  /** Live SSE subscribers per session; transient, never dumped. */
  streams: Map<string, Set<EventStream>>;
  /** Per deployment: the simulated time up to which its cron schedule has been evaluated. */
  scheduleMarks: Map<string, number>;
  /** The last timestamp handed out; kept in the state so a reset (which rewinds the clock) clears it. */
  lastTimestamp: number;
  /** Monotonic counter that keeps skill version strings unique within one clock tick. */
  lastSkillVersion: number;
}

export function createState(defaultKey: string): State {
  return {
    apiKeys: new Set([defaultKey]),
    environments: new Map(),
    reservedNames: new Map(),
    vaults: new Map(),
    credentials: new Map(),
    secrets: new Map(),
    seededFingerprints: new Map(),
    files: new Map(),
    fileContents: new Map(),
    skills: new Map(),
    skillVersions: new Map(),
    skillFiles: new Map(),
    agents: new Map(),
    agentVersions: new Map(),
    memoryStores: new Map(),
    memories: new Map(),
    memoryVersions: new Map(),
    deployments: new Map(),
    deploymentRuns: new Map(),
    sessions: new Map(),
    sessionEvents: new Map(),
    sessionThreads: new Map(),
    threadEvents: new Map(),
    streams: new Map(),
    scheduleMarks: new Map(),
    lastSkillVersion: 0,
    lastTimestamp: 0,
  };
}

/** What every route module receives. `state()` is read per request: a reset replaces the state. */
export interface Kit {
  dialect: Dialect;
  state(): State;
  clock: SimClock;
  ids: IdGenerator;
  newId(kind: IdKind): string;
  now(): string;
}
