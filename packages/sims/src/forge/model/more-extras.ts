/**
 * Records kept beside groups and projects for the second half of gitlab-mcp's tools: group wiki
 * pages, iterations, webhooks and their deliveries, uploads, release asset links and evidence,
 * vulnerabilities, the dependency proxy and work-item timeline events. They hang off
 * ForgeState.extras.more (created on first use) so seeds and resets carry them like the rest.
 */

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

export interface MoreExtras {
  seq: number;
  groupWiki: GroupWikiRow[];
  iterations: IterationRow[];
  hooks: HookRow[];
  hookEvents: HookEventRow[];
  uploads: UploadRow[];
  releaseLinks: ReleaseLinkRow[];
  evidence: EvidenceRow[];
  vulnerabilities: VulnerabilityRow[];
  dependencyProxy: DependencyProxyRow[];
  timeline: TimelineEventRow[];
  /** Custom fields (Premium) defined on root groups. */
  customFields?: CustomFieldRow[];
  /** Signed tags: `project_id:tag_name` → the signature GitLab verified. */
  tagSignatures: Record<string, { signature_type: "PGP" | "X509" | "SSH"; verification_status: string }>;
  /** Issue id → work item type (GitLab's issue types: issue, task, incident, ...), when not issue. */
  workItemTypes: Record<number, string>;
  /** Issue id → status id (work item status widget). */
  workItemStatus: Record<number, string>;
}

export function emptyMore(): MoreExtras {
  return {
    seq: 0,
    groupWiki: [],
    iterations: [],
    hooks: [],
    hookEvents: [],
    uploads: [],
    releaseLinks: [],
    evidence: [],
    vulnerabilities: [],
    dependencyProxy: [],
    timeline: [],
    tagSignatures: {},
    workItemTypes: {},
    workItemStatus: {},
  };
}

/** What more() needs of ForgeState (named structurally: state.ts imports this module's types). */
interface HasExtras {
  extras: { more?: MoreExtras };
}

export function more(state: HasExtras): MoreExtras {
  state.extras.more ??= emptyMore();
  return state.extras.more;
}

export function nextMoreId(state: HasExtras): number {
  return ++more(state).seq;
}
