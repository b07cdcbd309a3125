import type { SimClock } from "../../core/clock.js";
import type { IdGenerator } from "../../core/prng.js";

/** Access levels as GitLab numbers them (members API, `min_access_level`). */
export const ACCESS = { guest: 10, reporter: 20, developer: 30, maintainer: 40, owner: 50 } as const;

export interface ForgeUser {
  id: number;
  username: string;
  name: string;
  email: string;
  state: "active" | "blocked";
  admin: boolean;
  bio: string;
  created_at: string;
}

export interface Member {
  user_id: number;
  access_level: number;
}

export interface OAuthApplication {
  id: number;
  uid: string;
  /** Absent for public applications (PKCE replaces the secret). */
  secret?: string;
  name: string;
  confidential: boolean;
  /** Instance-wide trusted application: consent is skipped. */
  trusted: boolean;
  redirect_uris: string[];
  scopes: string[];
}

export interface AccessGrant {
  code: string;
  app_uid: string;
  user_id: number;
  redirect_uri: string;
  scopes: string[];
  code_challenge?: string;
  code_challenge_method?: "S256" | "plain";
  /** OpenID Connect nonce from the authorization request, echoed in the id_token. */
  nonce?: string;
  created_at_ms: number;
  expires_at_ms: number;
  used: boolean;
}

/** A device authorization (RFC 8628): polled by the device, approved in a browser. */
interface DeviceGrant {
  device_code: string;
  user_code: string;
  app_uid: string;
  scopes: string[];
  created_at_ms: number;
  expires_at_ms: number;
  interval: number;
  last_poll_ms: number | null;
  status: "pending" | "approved" | "denied" | "used";
  user_id: number | null;
}

/** One Doorkeeper token row: an access token and its refresh token live and die together. */
export interface OAuthToken {
  token: string;
  refresh_token: string;
  app_uid: string | null;
  user_id: number;
  scopes: string[];
  created_at_ms: number;
  expires_in: number;
  revoked_at_ms?: number;
  /** Set when this row was replaced by a refresh: its refresh token is spent. */
  refreshed: boolean;
}

export interface PersonalAccessToken {
  id: number;
  token: string;
  user_id: number;
  name: string;
  scopes: string[];
  /** ISO date (YYYY-MM-DD) or null for no expiry. */
  expires_at: string | null;
  revoked: boolean;
  created_at: string;
}

interface RateLimitSetting {
  limit: number;
  periodSeconds: number;
}

interface ForgeSettings {
  /** Scripted sign-in: the user who is "logged in" at /oauth/authorize. */
  signedInUser: string;
  /** true: the signed-in user approves at once; false: a consent page is served. */
  autoApprove: boolean;
  /** PKCE methods accepted at /oauth/authorize (Doorkeeper accepts both unless restricted). */
  pkceMethods: ("S256" | "plain")[];
  /** Simulates an edge cache that drops the Authorization header on /oauth/*. */
  edgeCacheStripsAuthorization: boolean;
  /** Rack::Attack-style throttle over all wire requests; null = off. */
  rateLimit: RateLimitSetting | null;
}

export interface Group {
  id: number;
  name: string;
  path: string;
  parent_id: number | null;
  description: string;
  visibility: Visibility;
  members: Member[];
  created_at: string;
}

export type Visibility = "public" | "internal" | "private";

export interface Commit {
  id: string;
  title: string;
  message: string;
  author_name: string;
  author_email: string;
  created_at: string;
  parent_ids: string[];
  /** Full snapshot of the tree at this commit: path → UTF-8 content. */
  files: Record<string, string>;
}

export interface Tag {
  name: string;
  target: string;
  /** Annotated tags carry a message; lightweight ones have null. */
  message: string | null;
  created_at: string;
}

export interface Repository {
  commits: Map<string, Commit>;
  branches: Map<string, string>;
  protected: Set<string>;
  tags: Map<string, Tag>;
}

export interface Project {
  id: number;
  name: string;
  path: string;
  description: string;
  /** Owning namespace: a group id, or a user's personal namespace. */
  namespace: { kind: "group"; id: number } | { kind: "user"; id: number };
  visibility: Visibility;
  default_branch: string;
  archived: boolean;
  members: Member[];
  creator_id: number;
  created_at: string;
  last_activity_at: string;
  repository: Repository;
}

export interface Note {
  id: number;
  body: string;
  author_id: number;
  created_at: string;
  updated_at: string;
  system: boolean;
  resolvable: boolean;
  resolved: boolean;
  /** Diff position of a line-level review comment (DiffNote), as the client sent it. */
  position?: Record<string, unknown>;
}

export interface Discussion {
  id: string;
  individual_note: boolean;
  notes: Note[];
}

export interface Issue {
  id: number;
  iid: number;
  project_id: number;
  title: string;
  description: string;
  state: "opened" | "closed";
  labels: string[];
  author_id: number;
  assignee_ids: number[];
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  closed_by_id: number | null;
  confidential: boolean;
  due_date: string | null;
  discussions: Discussion[];
}

export interface MergeRequest {
  id: number;
  iid: number;
  project_id: number;
  title: string;
  description: string;
  state: "opened" | "closed" | "merged";
  source_branch: string;
  target_branch: string;
  labels: string[];
  author_id: number;
  assignee_ids: number[];
  reviewer_ids: number[];
  draft: boolean;
  created_at: string;
  updated_at: string;
  merged_at: string | null;
  merged_by_id: number | null;
  closed_at: string | null;
  merge_commit_sha: string | null;
  /** Merge base of source and target, frozen when the MR is merged or closed. */
  diff_base_sha: string;
  /** Source head, followed while the MR is open and frozen afterwards. */
  head_sha: string;
  should_remove_source_branch: boolean | null;
  squash: boolean;
  approvals_required: number;
  approved_by_ids: number[];
  discussions: Discussion[];
  /** Review comments not yet published (GitLab's draft notes); each visible to its author only. */
  draft_notes?: DraftNote[];
}

export interface DraftNote {
  id: number;
  author_id: number;
  note: string;
  position: Record<string, unknown> | null;
  in_reply_to_discussion_id: string | null;
  resolve_discussion: boolean;
}

export type JobStatus =
  | "created"
  | "pending"
  | "running"
  | "success"
  | "failed"
  | "canceled"
  | "skipped"
  | "manual";

export interface Job {
  id: number;
  project_id: number;
  pipeline_id: number;
  name: string;
  stage: string;
  status: JobStatus;
  ref: string;
  sha: string;
  user_id: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  allow_failure: boolean;
  /** A fixed log, or null to render one from the job's state. */
  trace: string | null;
  retried: boolean;
  /** A trigger job (bridge): the downstream project it starts a pipeline in. Not listed among jobs. */
  trigger?: string;
  /** Simulated run on the clock; null once the status is final or set by hand. */
  schedule: {
    startMs: number;
    endMs: number;
    outcome: "success" | "failed" | "skipped";
    /** In the first stage of its run: waits as `pending` rather than `created`. */
    first: boolean;
  } | null;
  failure_reason: string | null;
  /** How long a run of this job takes once played (seconds; default 30). */
  run_seconds?: number;
  /** When the job's log and artifacts were erased (`POST /jobs/:id/erase`). */
  erased_at?: string | null;
  /**
   * The job's CI_JOB_TOKEN (a seed names it, so a test can act as the running job): accepted as
   * `JOB-TOKEN` only while the job runs, on the few endpoints GitLab lets job tokens reach.
   */
  token?: string;
}

export interface Pipeline {
  id: number;
  iid: number;
  project_id: number;
  sha: string;
  ref: string;
  status: JobStatus;
  source: string;
  user_id: number;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
  variables: { key: string; value: string }[];
  /** Set by `PUT /pipelines/:id/metadata`; null until then. */
  name?: string | null;
}

// The records a project or group keeps beside its repository, issues and merge requests. Each kind
// is one collection of ForgeState, seeded, dumped and emptied through seed/records.ts.

export interface LabelRow {
  id: number;
  project_id: number;
  name: string;
  color: string;
  description: string | null;
  priority: number | null;
}

export interface MilestoneRow {
  id: number;
  iid: number;
  project_id: number;
  title: string;
  description: string;
  state: "active" | "closed";
  start_date: string | null;
  due_date: string | null;
  created_at: string;
  updated_at: string;
}

export interface ReleaseRow {
  project_id: number;
  tag_name: string;
  name: string;
  description: string;
  author_id: number;
  milestones: string[];
  created_at: string;
  released_at: string;
}

export interface WikiRow {
  project_id: number;
  slug: string;
  title: string;
  content: string;
  format: string;
}

export interface IssueLinkRow {
  id: number;
  source_issue_id: number;
  target_issue_id: number;
  link_type: "relates_to" | "blocks" | "is_blocked_by";
  created_at: string;
}

export interface AwardRow {
  id: number;
  name: string;
  user_id: number;
  awardable_type: "Issue" | "MergeRequest" | "Note";
  awardable_id: number;
  created_at: string;
}

export interface VariableRow {
  /** `project:<id>` or `group:<id>`. */
  owner: string;
  key: string;
  value: string;
  variable_type: "env_var" | "file";
  protected: boolean;
  masked: boolean;
  hidden: boolean;
  raw: boolean;
  environment_scope: string;
  description: string | null;
}

export interface GroupMilestoneRow extends Omit<MilestoneRow, "project_id"> {
  group_id: number;
}

export interface EnvironmentRow {
  id: number;
  project_id: number;
  name: string;
  slug: string;
  external_url: string | null;
  state: "available" | "stopped";
  tier: string;
  created_at: string;
  updated_at: string;
  /** Set when delete_review_app_environments schedules the environment's deletion. */
  auto_delete_at?: string | null;
}

export interface DeploymentRow {
  id: number;
  iid: number;
  project_id: number;
  environment_id: number;
  ref: string;
  sha: string;
  status: "created" | "running" | "success" | "failed" | "canceled" | "blocked";
  user_id: number;
  job_id: number | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
  /** Approvals and rejections of a blocked deployment (a protected environment's). */
  approvals?: {
    user_id: number;
    status: "approved" | "rejected";
    comment: string | null;
    created_at: string;
  }[];
}

/** A pipeline schedule (rest/pipeline-schedules.ts): its cron, its owner and its variables. */
export interface PipelineScheduleRow {
  id: number;
  project_id: number;
  description: string;
  ref: string;
  cron: string;
  cron_timezone: string;
  active: boolean;
  owner_id: number;
  created_at: string;
  updated_at: string;
  variables: { key: string; value: string; variable_type: "env_var" | "file" }[];
  /** The pipelines the schedule has run, oldest first. */
  pipeline_ids: number[];
}

/** A pipeline trigger token (rest/triggers.ts). */
export interface TriggerRow {
  id: number;
  project_id: number;
  description: string;
  token: string;
  owner_id: number;
  created_at: string;
  updated_at: string;
  last_used: string | null;
}

export interface ProtectedBranchRow {
  id: number;
  name: string;
  push_access_level: number;
  merge_access_level: number;
  allow_force_push: boolean;
}

export interface CommitStatusRow {
  id: number;
  project_id: number;
  sha: string;
  ref: string | null;
  name: string;
  status: string;
  target_url: string | null;
  description: string | null;
  created_at: string;
  author_id: number;
}

export interface GroupWikiRow {
  group_id: number;
  slug: string;
  title: string;
  content: string;
  format: string;
}

export interface IterationRow {
  id: number;
  iid: number;
  group_id: number;
  title: string | null;
  description: string | null;
  start_date: string;
  due_date: string;
  created_at: string;
  updated_at: string;
}

export interface HookRow {
  id: number;
  project_id: number | null;
  group_id: number | null;
  url: string;
  name: string;
  description: string;
  created_at: string;
  events: Record<string, boolean>;
  enable_ssl_verification: boolean;
  /** The secret token sent as X-Gitlab-Token: stored, never answered. */
  token?: string;
  push_events_branch_filter?: string | null;
  branch_filter_strategy?: string;
}

export interface HookEventRow {
  id: number;
  hook_id: number;
  trigger: string;
  url: string;
  request_headers: Record<string, string>;
  request_data: Record<string, unknown>;
  response_headers: Record<string, string>;
  response_body: string;
  response_status: number;
  execution_duration: number;
  created_at: string;
}

export interface UploadRow {
  id: number;
  project_id: number;
  secret: string;
  filename: string;
  /** base64 */
  content: string;
  content_type: string;
  created_at: string;
}

export interface ReleaseLinkRow {
  id: number;
  project_id: number;
  tag_name: string;
  name: string;
  url: string;
  direct_asset_path: string;
  link_type: string;
}

export interface EvidenceRow {
  id: number;
  project_id: number;
  tag_name: string;
  sha: string;
  collected_at: string;
}

export interface VulnerabilityRow {
  id: number;
  project_id: number;
  title: string;
  description: string;
  severity: string;
  state: "detected" | "confirmed" | "resolved" | "dismissed";
  report_type: string;
  dismissal_reason: string | null;
  detected_at: string;
  updated_at: string;
  notes: string[];
}

export interface DependencyProxyRow {
  group_id: number;
  enabled: boolean;
  identity: string | null;
  /** Never answered: GitLab does not return the secret. */
  secret_set: boolean;
  blobs: Array<{ id: number; file_name: string; size: number; created_at: string }>;
}

export interface TimelineEventRow {
  id: number;
  issue_id: number;
  note: string;
  occurred_at: string;
  tags: string[];
  author_id: number;
  created_at: string;
}

export interface CustomFieldRow {
  id: number;
  /** The root group that defines it. */
  group_id: number;
  name: string;
  field_type: "SINGLE_SELECT" | "MULTI_SELECT" | "TEXT" | "NUMBER";
  options: Array<{ id: number; value: string }>;
  /** Work item types (issue, task, ...) it applies to. */
  work_item_types: string[];
}

export interface ForgeState {
  settings: ForgeSettings;
  users: ForgeUser[];
  applications: OAuthApplication[];
  grants: Map<string, AccessGrant>;
  devices: Map<string, DeviceGrant>;
  tokens: Map<string, OAuthToken>;
  tokensByRefresh: Map<string, OAuthToken>;
  pats: Map<string, PersonalAccessToken>;
  groups: Group[];
  projects: Project[];
  issues: Issue[];
  mergeRequests: MergeRequest[];
  pipelines: Pipeline[];
  jobs: Job[];
  labels: LabelRow[];
  milestones: MilestoneRow[];
  /** Group milestones (rest/group-milestones.ts); their ids share `seq.record` with project milestones. */
  groupMilestones: GroupMilestoneRow[];
  /** Issue id → milestone id (project or ancestor group milestone). */
  issueMilestones: Record<number, number>;
  /** Merge request id → milestone id (project or ancestor group milestone). */
  mrMilestones: Record<number, number>;
  releases: ReleaseRow[];
  releaseLinks: ReleaseLinkRow[];
  evidence: EvidenceRow[];
  /** Signed tags: `project_id:tag_name` → the signature GitLab verified. */
  tagSignatures: Record<string, { signature_type: "PGP" | "X509" | "SSH"; verification_status: string }>;
  /** Project wiki pages. */
  wiki: WikiRow[];
  groupWiki: GroupWikiRow[];
  /** Issue links. */
  links: IssueLinkRow[];
  /** Ids of the derived to-do items marked done. */
  todosDone: number[];
  /** Emoji reactions on issues, merge requests and their notes. */
  awards: AwardRow[];
  /** Job id → artifact archive contents (path → text), set by seeding; see jobArtifactFiles. */
  artifacts: Record<number, Record<string, string>>;
  /** Fork project id → the project it was forked from. */
  forks: Record<number, number>;
  /** Project id → its protected branches (the default branch until changed: see protectedBranches). */
  protectedBranches: Record<number, ProtectedBranchRow[]>;
  /** External commit statuses (POST /projects/:id/statuses/:sha). */
  statuses: CommitStatusRow[];
  /** Project and group CI/CD variables (rest/variables.ts). */
  variables: VariableRow[];
  /** Environments and deployments (rest/environments.ts, rest/deployments.ts). */
  environments: EnvironmentRow[];
  deployments: DeploymentRow[];
  /** Pipeline schedules and pipeline trigger tokens (rest/pipeline-schedules.ts, rest/triggers.ts). */
  pipelineSchedules: PipelineScheduleRow[];
  triggers: TriggerRow[];
  iterations: IterationRow[];
  /** Project and group webhooks, and their recorded deliveries. */
  hooks: HookRow[];
  hookEvents: HookEventRow[];
  uploads: UploadRow[];
  vulnerabilities: VulnerabilityRow[];
  dependencyProxy: DependencyProxyRow[];
  /** Incident timeline events. */
  timeline: TimelineEventRow[];
  /** Custom fields (Premium) defined on root groups. */
  customFields: CustomFieldRow[];
  /** Issue id → work item type (GitLab's issue types: issue, task, incident, ...), when not issue. */
  workItemTypes: Record<number, string>;
  /** Issue id → status id (work item status widget). */
  workItemStatus: Record<number, string>;
  /**
   * Last id given per kind: GitLab ids are instance-wide integers. The records above share two
   * series, numbered as they always were: `record` (labels, milestones, award emoji, issue links,
   * environments, deployments, protected branches, commit statuses) and `record2` (iterations,
   * hooks and their deliveries, uploads, release links, evidence, vulnerabilities, custom fields,
   * dependency proxy blobs, timeline events).
   */
  seq: Record<
    | "user"
    | "app"
    | "pat"
    | "group"
    | "project"
    | "issue"
    | "mr"
    | "note"
    | "pipeline"
    | "job"
    | "record"
    | "record2",
    number
  >;
  rateWindow: { startMs: number; count: number };
  ids: IdGenerator;
  clock: SimClock;
}

export function nextId(state: ForgeState, kind: keyof ForgeState["seq"]): number {
  state.seq[kind] += 1;
  return state.seq[kind];
}

/** Every record collection, empty. */
export function emptyRecords() {
  return {
    labels: [],
    milestones: [],
    groupMilestones: [],
    issueMilestones: {},
    mrMilestones: {},
    releases: [],
    releaseLinks: [],
    evidence: [],
    tagSignatures: {},
    wiki: [],
    groupWiki: [],
    links: [],
    todosDone: [],
    awards: [],
    artifacts: {},
    forks: {},
    protectedBranches: {},
    statuses: [],
    variables: [],
    environments: [],
    deployments: [],
    pipelineSchedules: [],
    triggers: [],
    iterations: [],
    hooks: [],
    hookEvents: [],
    uploads: [],
    vulnerabilities: [],
    dependencyProxy: [],
    timeline: [],
    customFields: [],
    workItemTypes: {},
    workItemStatus: {},
  } satisfies Partial<ForgeState>;
}

export function emptyState(ids: IdGenerator, clock: SimClock): ForgeState {
  return {
    settings: {
      signedInUser: "alice",
      autoApprove: true,
      pkceMethods: ["S256", "plain"],
      edgeCacheStripsAuthorization: false,
      rateLimit: null,
    },
    users: [],
    applications: [],
    grants: new Map(),
    devices: new Map(),
    tokens: new Map(),
    tokensByRefresh: new Map(),
    pats: new Map(),
    groups: [],
    projects: [],
    issues: [],
    mergeRequests: [],
    pipelines: [],
    jobs: [],
    ...emptyRecords(),
    seq: {
      user: 0,
      app: 0,
      pat: 0,
      group: 0,
      project: 0,
      issue: 0,
      mr: 0,
      note: 0,
      pipeline: 0,
      job: 0,
      record: 0,
      record2: 0,
    },
    rateWindow: { startMs: 0, count: 0 },
    ids,
    clock,
  };
}

export function userById(state: ForgeState, id: number): ForgeUser | undefined {
  return state.users.find((u) => u.id === id);
}

export function userByName(state: ForgeState, username: string): ForgeUser | undefined {
  const lower = username.toLowerCase();
  return state.users.find((u) => u.username.toLowerCase() === lower);
}

/** A 64-character token or code from the seeded stream (GitLab's are 64 hex characters). */
export function secretValue(state: ForgeState, prefix = ""): string {
  return prefix + state.ids.next("", 64 - prefix.length);
}
