import { str } from "../wire/params.js";
import type { MoreExtras } from "./more-extras.js";

/**
 * The records a project keeps beside its repository, issues and merge requests: labels,
 * milestones, releases, wiki pages, issue links, to-do items marked done, job artifacts and forks.
 * They hang off ForgeState.extras so seeds (structuredClone) and resets carry them like the rest.
 */

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

interface IssueLinkRow {
  id: number;
  source_issue_id: number;
  target_issue_id: number;
  link_type: "relates_to" | "blocks" | "is_blocked_by";
  created_at: string;
}

export interface ProjectExtras {
  seq: number;
  labels: LabelRow[];
  milestones: MilestoneRow[];
  releases: ReleaseRow[];
  wiki: WikiRow[];
  links: IssueLinkRow[];
  todosDone: number[];
  /** Issue id → milestone id. */
  issueMilestones: Record<number, number>;
  /** Job id → artifact archive contents (path → text), set by seeding; see jobArtifactFiles. */
  artifacts: Record<number, Record<string, string>>;
  /** Fork project id → the project it was forked from. */
  forks: Record<number, number>;
  /** Project id → its protected branches (the default branch until changed: see protectedBranches). */
  protectedBranches?: Record<number, ProtectedBranchRow[]>;
  /** External commit statuses (POST /projects/:id/statuses/:sha). */
  statuses?: CommitStatusRow[];
  /** Emoji reactions on issues, merge requests and their notes (rest/award-emoji.ts). */
  awards?: AwardRow[];
  /** Project and group CI/CD variables (rest/ci-variables.ts). */
  variables?: VariableRow[];
  /** Group milestones (rest/milestone-extras.ts); their ids share `seq` with project milestones. */
  groupMilestones?: GroupMilestoneRow[];
  /** Merge request id → milestone id (project or ancestor group milestone). */
  mrMilestones?: Record<number, number>;
  /** Environments and deployments (rest/ci-extras.ts). */
  environments?: EnvironmentRow[];
  deployments?: DeploymentRow[];
  /** Group wikis, iterations, webhooks, uploads, vulnerabilities, ... (more-extras.ts). */
  more?: MoreExtras;
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

export function emptyExtras(): ProjectExtras {
  return {
    seq: 0,
    labels: [],
    milestones: [],
    releases: [],
    wiki: [],
    links: [],
    todosDone: [],
    issueMilestones: {},
    artifacts: {},
    forks: {},
  };
}

/** An issue's or merge request's `upvotes` and `downvotes`: its thumbsup and thumbsdown award emoji. */
export function votes(extras: ProjectExtras, type: "Issue" | "MergeRequest", id: number) {
  const on = (extras.awards ?? []).filter((a) => a.awardable_type === type && a.awardable_id === id);
  return {
    upvotes: on.filter((a) => a.name === "thumbsup").length,
    downvotes: on.filter((a) => a.name === "thumbsdown").length,
  };
}

/** Wiki slugs as GitLab derives them from titles: spaces become dashes, the rest kept. */
export function wikiSlug(title: string): string {
  return title.trim().replace(/\s+/g, "-");
}

/** A wiki page as GitLab answers it, a project's or a group's; `content` only where asked for. */
export function wikiJson(
  w: { slug: string; title: string; content: string; format: string },
  content: boolean,
) {
  return {
    ...(content ? { content: w.content } : {}),
    format: w.format,
    slug: w.slug,
    title: w.title,
    encoding: "UTF-8",
  };
}

/**
 * A new wiki page from a create body (`POST …/wikis`, a project's or a group's): its fields, or
 * the body's missing parameters, or GitLab's 400 message when a page already has the title's slug.
 */
export function newWikiPage(
  body: Record<string, unknown>,
  exists: (slug: string) => boolean,
):
  | { page: { slug: string; title: string; content: string; format: string } }
  | { missing: string[] }
  | { error: string } {
  const title = str(body.title)?.trim();
  const content = str(body.content);
  if (!title || content === undefined)
    return { missing: [...(!title ? ["title"] : []), ...(content === undefined ? ["content"] : [])] };
  const slug = wikiSlug(title);
  if (exists(slug)) return { error: "Duplicate page: A page with that title already exists" };
  return { page: { slug, title, content, format: str(body.format) ?? "markdown" } };
}

/**
 * A wiki page's edit (`PUT …/wikis/:slug`, a project's or a group's): applies the body's title
 * (which renames the slug), content and format, or answers GitLab's 400 message when the body
 * has none of them (nothing applied then).
 */
export function editWikiPage(
  page: { slug: string; title: string; content: string; format: string },
  body: Record<string, unknown>,
): string | undefined {
  if (body.title === undefined && body.content === undefined && body.format === undefined)
    return "content, title, format are missing, at least one parameter must be provided";
  if (typeof body.title === "string" && body.title.trim()) {
    page.title = body.title.trim();
    page.slug = wikiSlug(page.title);
  }
  if (typeof body.content === "string") page.content = body.content;
  if (typeof body.format === "string") page.format = body.format;
  return undefined;
}

/**
 * The files in a job's artifacts archive: seeded ones, or for a successful job a summary file
 * `<job name>/summary.txt` (so every finished pipeline has something to download).
 */
export function jobArtifactFiles(
  extras: ProjectExtras,
  job: { id: number; name: string; status: string; sha: string },
): Record<string, string> {
  const seeded = extras.artifacts[job.id];
  if (seeded) return seeded;
  if (job.status !== "success") return {};
  return { [`${job.name}/summary.txt`]: `job ${job.name} (${job.id}) at ${job.sha}: success\n` };
}

/** The `artifacts` entries of a job: the zip archive and the job log, as GitLab lists them. */
export function jobArtifactsJson(
  extras: ProjectExtras,
  job: { id: number; name: string; status: string; sha: string },
  traceSize: number,
) {
  const files = jobArtifactFiles(extras, job);
  const size = Object.entries(files).reduce((n, [p, c]) => n + p.length + Buffer.byteLength(c) + 100, 22);
  const out: Array<{ file_type: string; size: number; filename: string; file_format: string | null }> = [];
  if (Object.keys(files).length)
    out.push({ file_type: "archive", size, filename: "artifacts.zip", file_format: "zip" });
  out.push({ file_type: "trace", size: traceSize, filename: "job.log", file_format: null });
  return { artifacts: out, archive: Object.keys(files).length ? { filename: "artifacts.zip", size } : null };
}
