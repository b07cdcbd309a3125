import { createHash } from "node:crypto";
import { z } from "zod";
import { type Config, parseToolsets, TOOLSET_ALIASES, TOOLSET_NAMES, type Toolset } from "../config.js";
import { ForgeApi } from "../forge/api.js";
import { ProjectScope } from "../forge/project-scope.js";
import type { CallContext, Caller, Catalogue, CatalogueTool, ClientView } from "../mcp/catalogue.js";
import { branchProtectionTools } from "./branch-protection.js";
import { ciCatalogTools, ciTools } from "./ci.js";
import { codeSearchTools } from "./code-search.js";
import type { Asker, ConfirmMode } from "./confirm.js";
import { catalogueTools, type ForgeTool, permitted, type ToolCall, toolNames } from "./define.js";
import { dependencyProxyTools } from "./dependency-proxy.js";
import { releaseAssetTools, tagSignatureTools, uploadTools } from "./downloads.js";
import { issueEmojiTools, mergeRequestEmojiTools, workItemEmojiTools } from "./emoji.js";
import { environmentTools } from "./environments.js";
import { type Exposure, expose } from "./exposure.js";
import { graphqlTools } from "./graphql.js";
import { groupExtraTools } from "./group-extras.js";
import { groupMilestoneTools, milestoneItemTools } from "./group-milestones.js";
import { groupWikiTools } from "./group-wiki.js";
import { groupTools } from "./groups.js";
import { issueExtraTools } from "./issue-extras.js";
import { issueTools } from "./issues.js";
import { labelTools } from "./labels.js";
import { loadMasking, type MaskPolicy } from "./masking.js";
import { mergeRequestTools } from "./merge-requests.js";
import { milestoneTools } from "./milestones.js";
import { mrDiscussionTools } from "./mr-discussions.js";
import { mrReviewTools } from "./mr-review.js";
import { orbitTools } from "./orbit.js";
import { pipelineScheduleTools } from "./pipeline-schedules.js";
import { pipelineTriggerTools } from "./pipeline-triggers.js";
import { pipelineTools } from "./pipelines.js";
import { projectTools } from "./projects.js";
import { repositoryTools } from "./repository.js";
import { searchTools } from "./search.js";
import { releaseTools, tagTools } from "./tags-releases.js";
import { firstSentence, rankTools } from "./tool-search.js";
import { userLookupTools } from "./user-lookup.js";
import { userTools } from "./users.js";
import { variableToolsList } from "./variables.js";
import { vulnerabilityTools } from "./vulnerabilities.js";
import { webhookTools } from "./webhooks.js";
import { wikiTools } from "./wiki.js";
import { workItemTools } from "./work-items.js";

/** Every tool, by toolset, in the order tools/list shows them. */
export const TOOLSETS: Record<Toolset, ForgeTool[]> = {
  projects: projectTools,
  issues: [...issueTools, ...issueExtraTools, ...issueEmojiTools],
  merge_requests: [...mergeRequestTools, ...mrDiscussionTools, ...mrReviewTools, ...mergeRequestEmojiTools],
  pipelines: [
    ...pipelineTools,
    ...ciTools,
    ...ciCatalogTools,
    ...pipelineScheduleTools,
    ...pipelineTriggerTools,
    ...environmentTools,
  ],
  repository: [...repositoryTools, ...branchProtectionTools],
  users: [...userTools, ...userLookupTools, ...uploadTools],
  groups: [...groupTools, ...groupExtraTools],
  labels: labelTools,
  milestones: [...milestoneTools, ...milestoneItemTools, ...groupMilestoneTools],
  tags: [...tagTools, ...tagSignatureTools],
  releases: [...releaseTools, ...releaseAssetTools],
  wiki: [...wikiTools, ...groupWikiTools],
  search: [...searchTools, ...codeSearchTools],
  variables: variableToolsList,
  graphql: graphqlTools,
  webhooks: webhookTools,
  workitems: [...workItemTools, ...workItemEmojiTools],
  vulnerabilities: vulnerabilityTools,
  dependency_proxy: dependencyProxyTools,
  orbit: orbitTools,
};

/**
 * The toolsets listed without FORGE_TOOLSETS before the core list: everything but GraphQL (a query
 * can reach anything), CI/CD variables (secrets, and writing them changes what pipelines run
 * with) and Orbit (GitLab.com's knowledge graph: its queries spend credits, and most forges lack
 * it). An operator who wants that list back names them (docs/forge-mcp.md's tools table says so).
 */
const OPT_IN: readonly Toolset[] = ["graphql", "variables", "orbit"];
export const DEFAULT_TOOLSETS = TOOLSET_NAMES.filter((t) => !OPT_IN.includes(t));

/**
 * The default list (FORGE_TOOLSETS unset): what a working developer needs every day, the rest one
 * search_tools away. Issues, merge requests with their diffs and discussions, pipelines and jobs,
 * files and commits, search and the current user.
 */
export const CORE_TOOLS: readonly string[] = [
  "whoami",
  "get_project",
  "list_issues",
  "get_issue",
  "create_issue",
  "update_issue",
  "create_issue_note",
  "list_issue_discussions",
  "list_merge_requests",
  "get_merge_request",
  "get_merge_request_diffs",
  "create_merge_request",
  "update_merge_request",
  "merge_merge_request",
  "mr_discussions",
  "create_merge_request_note",
  "create_merge_request_thread",
  "list_pipelines",
  "get_pipeline",
  "list_pipeline_jobs",
  "get_pipeline_job_output",
  "retry_pipeline",
  "get_repository_tree",
  "get_file_contents",
  "create_or_update_file",
  "list_branches",
  "create_branch",
  "list_commits",
  "get_commit",
  "get_commit_diff",
  "search",
];

/** The tools that change the caller's own tool list (their calls answer on an event stream). */
export const LIST_CHANGING_TOOLS = new Set(["discover_tools"]);

/** The tools that report progress while they wait (asked with a progressToken: an event stream). */
export const PROGRESS_TOOLS = new Set(["wait_for_pipeline", "wait_for_job", "play_pipeline_jobs"]);

/** Earlier names of renamed tools → today's names (still callable for one release, not listed). */
export const TOOL_ALIASES: ReadonlyMap<string, string> = new Map(
  Object.values(TOOLSETS)
    .flat()
    .flatMap((t) => (t.aliases ?? []).map((a) => [a, t.name] as const)),
);

interface ToolOptions extends Exposure {
  readOnly: boolean;
  toolsets: string[] | undefined;
  /** Confirmation of destructive tools (FORGE_MCP_CONFIRM_DESTRUCTIVE); none when unset. */
  confirm?: { mode: ConfirmMode; asker: Asker } | undefined;
  /** Told of every finished tool call (metrics, audit). */
  observe?: ((call: ToolCall) => void) | undefined;
  /**
   * The toolsets each caller loaded with discover_tools. HTTP passes one store shared by its pooled
   * servers (keyed by the caller's token); without one, the server keeps its own (stdio: one client).
   */
  loaded?: LoadedToolsets | undefined;
}

// a configuration's masking files are read once (main checks them at start-up, the servers reuse them)
const maskings = new WeakMap<Config, MaskPolicy | undefined>();

/**
 * What a configuration says about which tools are served and how (both transports read it so).
 * Throws the ConfigError of an unreadable or invalid masking file.
 */
export function toolExposure(config: Config) {
  if (!maskings.has(config)) maskings.set(config, loadMasking(config));
  return {
    readOnly: config.readOnly,
    permission: config.permission,
    extraTools: config.extraTools,
    deniedTools: config.deniedTools,
    defaultProject: config.defaultProject,
    toolsets: config.toolsets,
    mask: maskings.get(config),
  };
}

/**
 * The catalogue of a process serving one user (stdio): every call goes to the configured forge
 * with the one token, through the configured project list.
 */
export function stdioCatalogue(
  config: Config,
  token: string | (() => Promise<string>),
  extra: Pick<ToolOptions, "confirm" | "observe">,
): Catalogue {
  const api = new ForgeApi(
    config.forgeApiUrl,
    token,
    config.forgeTimeoutMs,
    undefined,
    config.allowedProjects.length > 0
      ? new ProjectScope(config.allowedProjects, { strict: config.strictProjectScope })
      : undefined,
    // GITLAB_JOB_TOKEN travels as JOB-TOKEN (a local OAuth token or FORGE_TOKEN as a bearer)
    config.forgeTokenKind === "job" && !config.localOAuth ? "job" : "bearer",
  );
  return createCatalogue({ ...toolExposure(config), ...extra }, () => api);
}

/** Every tool name there is, for warnings about GITLAB_TOOLS naming tools we do not have. */
export const ALL_TOOL_NAMES = Object.values(TOOLSETS).flatMap((ts) => ts.flatMap(toolNames));

/**
 * The tools a configuration serves, in tools/list order: the selected toolsets' and the extra
 * tools, narrowed by the permission mode and the deny regex (./exposure.ts, the one place).
 */
export function selectTools(opts: ToolOptions): ForgeTool[] {
  return expose(TOOLSETS, opts.toolsets ?? DEFAULT_TOOLSETS, opts);
}

/**
 * Every tool a configuration can serve once its toolset is loaded with discover_tools: all
 * toolsets, narrowed by the permission mode and the deny regex as selectTools is.
 */
export function servableTools(opts: Exposure): ForgeTool[] {
  return Object.values(TOOLSETS)
    .flat()
    .filter((t) => permitted(t, opts));
}

/**
 * What each caller loaded with discover_tools (toolsets, single tools): a bounded map from a hash
 * of the caller's token (never the token) to what it added. Memory only, so in a stateless
 * deployment a load is seen by the replica that served it; calling discover_tools again is harmless.
 */
export class LoadedToolsets {
  private readonly byCaller = new Map<string, Set<string>>();
  constructor(private readonly max = 10_000) {}

  private key(token: string | undefined): string {
    return token === undefined ? "" : createHash("sha256").update(token).digest("base64url");
  }

  /** The toolsets and the single tools (as `tool:<name>`) this caller loaded. */
  get(token: string | undefined): ReadonlySet<string> {
    return this.byCaller.get(this.key(token)) ?? new Set();
  }

  /** Adds a toolset's name (or `tool:<name>`); false when it was loaded already. */
  add(token: string | undefined, entry: string): boolean {
    const k = this.key(token);
    const set = this.byCaller.get(k) ?? new Set<string>();
    if (set.has(entry)) return false;
    set.add(entry);
    // least recently loaded first out, so the map stays bounded
    this.byCaller.delete(k);
    this.byCaller.set(k, set);
    if (this.byCaller.size > this.max) this.byCaller.delete(this.byCaller.keys().next().value as string);
    return true;
  }
}

/** The tools every caller may use whatever its list: they find and load the others. */
const META_TOOLS = new Set(["search_tools", "discover_tools"]);

/**
 * The catalogue of a configuration (src/mcp/catalogue.ts): every tool it can serve, each alias as
 * a tool of its own name. Per caller, tools/list shows the starting list (the core, or the
 * operator's FORGE_TOOLSETS), what the caller loaded with discover_tools, and the two meta tools;
 * a request's view (headers) may replace the starting list by toolsets and tools of its choice and
 * narrow it by exclusion and read-only, never past what the configuration serves. Any tool the
 * configuration serves and the view does not narrow away may be called by name, listed or not
 * (search_tools finds the name): the list saves the model's context, it is no permission.
 * apiFor maps a call's caller to a forge client.
 */
export function createCatalogue(
  opts: ToolOptions,
  apiFor: (ctx: { authInfo?: Caller | undefined }) => ForgeApi,
): Catalogue {
  const loaded = opts.loaded ?? new LoadedToolsets();
  const startList = startTools(opts).map((t) => t.name);
  const initial = new Set(startList);
  // tools/list order: the starting tools in their order, loaded ones after, the meta tools last
  const rank = new Map(startList.map((n, i) => [n, i]));
  const order = (name: string) => (META_TOOLS.has(name) ? Infinity : (rank.get(name) ?? startList.length));
  const toolsetOf = new Map<string, Toolset>();
  for (const [set, tools] of Object.entries(TOOLSETS) as [Toolset, ForgeTool[]][])
    for (const t of tools) for (const n of toolNames(t)) toolsetOf.set(n, set);
  const primary = (name: string) => TOOL_ALIASES.get(name) ?? name;
  const wasLoaded = (name: string, caller: Caller | undefined) => {
    const mine = loaded.get(caller?.token);
    return mine.has(toolsetOf.get(name)!) || mine.has(`tool:${primary(name)}`);
  };
  /** What a view lets a request see and call at most (undefined: everything served). */
  const chosen = (view: ClientView | undefined) => {
    if (!view?.toolsets && !view?.tools) return undefined;
    const sets = new Set(parseToolsets((view.toolsets ?? []).join(",")).toolsets);
    const tools = new Set((view.tools ?? []).map(primary));
    const withDefault = view.toolsets?.some((n) => n === "default" || n === "core") ?? false;
    return (name: string) =>
      sets.has(toolsetOf.get(name)!) ||
      tools.has(primary(name)) ||
      (withDefault && initial.has(primary(name)));
  };
  /** Whether the view's exclusions and read-only let a request near this tool at all. */
  const narrowedAway = (t: CatalogueTool, view: ClientView | undefined) =>
    !!view &&
    ((view.readOnly && !t.annotations.readOnlyHint) ||
      (view.exclude?.includes(t.name) ?? false) ||
      (view.exclude?.includes(primary(t.name)) ?? false));

  const tools = new Map<string, CatalogueTool>();
  // what tools/list may ever show: each tool once, by today's name, in the catalogue's order
  // (stable: loaded toolsets keep it among themselves); filled below
  let listable: CatalogueTool[] = [];
  const callable = (name: string, caller: Caller | undefined, view: ClientView | undefined) => {
    const t = tools.get(name);
    if (!t || narrowedAway(t, view)) return false;
    const only = chosen(view);
    return !only || META_TOOLS.has(name) || only(name) || wasLoaded(name, caller);
  };
  const searchable = (caller: Caller | undefined, view: ClientView | undefined) =>
    listable.filter((t) => callable(t.name, caller, view));
  for (const t of [
    ...catalogueTools(servableTools(opts), apiFor, (t) => toolsetOf.get(t.name)!, opts),
    searchTool(searchable),
    discoverTool(loaded, opts, toolsetOf),
  ])
    tools.set(t.name, t);
  listable = [...tools.values()]
    .filter((t) => !TOOL_ALIASES.has(t.name))
    .sort((a, b) => order(a.name) - order(b.name));
  return {
    tools,
    listed: (caller, view) => {
      const only = chosen(view);
      return listable.filter(
        (t) =>
          !narrowedAway(t, view) &&
          (META_TOOLS.has(t.name) ||
            wasLoaded(t.name, caller) ||
            (only ? only(t.name) : initial.has(t.name))),
      );
    },
    refusal: (name, caller, view) => {
      if (callable(name, caller, view)) return undefined;
      return view?.readOnly && tools.get(name)?.annotations.readOnlyHint === false
        ? `Tool ${name} writes, and this request asked for readers only (X-MCP-Readonly)`
        : `Tool ${name} is outside the toolsets and tools this request's headers chose; call discover_tools to load it`;
    },
  };
}

/**
 * The tools a caller starts with: the operator's FORGE_TOOLSETS (and GITLAB_TOOLS) when set, as
 * before; unset, the core (CORE_TOOLS) and GITLAB_TOOLS. Both narrowed by the permission mode and
 * the deny regex.
 */
export function startTools(opts: ToolOptions): ForgeTool[] {
  if (opts.toolsets !== undefined) return selectTools(opts);
  return expose(TOOLSETS, [], { ...opts, extraTools: [...CORE_TOOLS, ...(opts.extraTools ?? [])] });
}

/** A name with the request's prefix, as that request's tools/list shows it. */
const shown = (name: string, view: ClientView | undefined) => (view?.prefix ?? "") + name;

function searchTool(
  searchable: (caller: Caller | undefined, view: ClientView | undefined) => CatalogueTool[],
): CatalogueTool {
  return {
    name: "search_tools",
    toolset: "meta",
    description:
      'Find tools by what they do (e.g. "retry a failed job", "wiki page"): answers matching tool names, best first, one line each. Every tool it names can be called by name, listed or not.',
    input: {
      query: z.string().min(1).describe("What you want to do, in words, or a tool's name"),
      limit: z.number().int().min(1).max(50).optional().describe("Most names to answer (default 10)"),
    },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    output: {
      type: "object",
      properties: {
        tools: {
          type: "array",
          items: {
            type: "object",
            properties: {
              name: { type: "string" },
              toolset: { type: "string" },
              summary: { type: "string" },
            },
            required: ["name", "toolset", "summary"],
          },
        },
      },
      required: ["tools"],
    },
    handler: async (args, ctx: CallContext) => {
      const found = rankTools(
        searchable(ctx.authInfo, ctx.view),
        args.query as string,
        (args.limit as number | undefined) ?? 10,
      );
      const text = found.length
        ? found
            .map((t) => `${shown(t.name, ctx.view)} (${t.toolset}): ${firstSentence(t.description)}`)
            .join("\n")
        : `No tool matches "${args.query as string}"; call discover_tools without arguments for every toolset.`;
      const tools = found.map((t) => ({
        name: shown(t.name, ctx.view),
        toolset: t.toolset,
        summary: firstSentence(t.description),
      }));
      // The lines are the text a model reads; the same names as structuredContent for clients that
      // validate against the outputSchema every read tool declares.
      return { content: [{ type: "text", text }], structuredContent: { tools } };
    },
  };
}

function discoverTool(
  loaded: LoadedToolsets,
  opts: ToolOptions,
  toolsetOf: ReadonlyMap<string, Toolset>,
): CatalogueTool {
  const names = TOOLSET_NAMES;
  const servable = new Map(servableTools(opts).flatMap((t) => toolNames(t).map((n) => [n, t.name] as const)));
  return {
    name: "discover_tools",
    toolset: "meta",
    description: `List the toolsets, or load a toolset or named tools into this session's tools/list (notifications/tools/list_changed follows). Toolsets: ${names.join(", ")}.`,
    input: {
      category: z
        .string()
        .optional()
        .describe(
          "Toolset to load (gitlab-mcp's repositories, branches, ci accepted); omit both to list toolsets",
        ),
      tools: z.array(z.string()).optional().describe("Tool names to load (as search_tools answers them)"),
    },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: async (args, ctx: CallContext) => {
      const category = args.category as string | undefined;
      const wanted = ((args.tools as string[] | undefined) ?? []).map((n) =>
        ctx.view?.prefix && n.startsWith(ctx.view.prefix) ? n.slice(ctx.view.prefix.length) : n,
      );
      const token = ctx.authInfo?.token;
      const mine = loaded.get(token);
      const active = new Set<string>([
        ...(opts.toolsets ?? []).filter((t): t is Toolset => t in TOOLSETS),
        ...mine,
      ]);
      const summary = () =>
        names.map((t) => ({
          toolset: t,
          active: active.has(t),
          tools: TOOLSETS[t].filter((x) => permitted(x, opts)).map((x) => shown(x.name, ctx.view)),
        }));
      if (category === undefined && wanted.length === 0)
        return { content: [{ type: "text", text: JSON.stringify({ toolsets: summary() }) }] };
      let added = false;
      const out: Record<string, unknown> = {};
      if (category !== undefined) {
        const lower = category.trim().toLowerCase();
        const toolset = (names as readonly string[]).includes(lower)
          ? (lower as Toolset)
          : TOOLSET_ALIASES[lower];
        if (!toolset)
          return {
            isError: true,
            content: [{ type: "text", text: `Unknown toolset "${category}"; known: ${names.join(", ")}` }],
          };
        const now = !active.has(toolset) && loaded.add(token, toolset);
        added ||= now;
        Object.assign(out, {
          loaded: toolset,
          already_active: !now,
          tools: TOOLSETS[toolset].filter((x) => permitted(x, opts)).map((x) => shown(x.name, ctx.view)),
        });
      }
      if (wanted.length) {
        const unknown = wanted.filter((n) => !servable.has(n));
        const known = wanted.filter((n) => servable.has(n)).map((n) => servable.get(n)!);
        for (const n of known)
          if (!active.has(toolsetOf.get(n)!) && loaded.add(token, `tool:${n}`)) added = true;
        Object.assign(
          out,
          { loaded_tools: known.map((n) => shown(n, ctx.view)) },
          unknown.length && { unknown },
        );
      }
      // on this request's own stream, so a stateless HTTP client receives it too
      if (added) await ctx.sendNotification({ method: "notifications/tools/list_changed" });
      return { content: [{ type: "text", text: JSON.stringify(out) }] };
    },
  };
}
