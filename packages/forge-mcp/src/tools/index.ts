import { createHash } from "node:crypto";
import { z } from "zod";
import { type Config, TOOLSET_ALIASES, TOOLSET_NAMES, type Toolset } from "../config.js";
import type { ForgeApi } from "../forge/api.js";
import type { CallContext, Caller, Catalogue, CatalogueTool } from "../mcp/catalogue.js";
import { branchProtectionTools } from "./branch-protection.js";
import { ciCatalogTools, ciTools } from "./ci.js";
import { codeSearchTools } from "./code-search.js";
import type { Asker, ConfirmMode } from "./confirm.js";
import { catalogueTools, type ForgeTool, permitted, type ToolCall, toolNames } from "./define.js";
import { dependencyProxyTools } from "./dependency-proxy.js";
import { releaseAssetTools, tagSignatureTools, uploadTools } from "./downloads.js";
import { issueEmojiTools, mergeRequestEmojiTools, workItemEmojiTools } from "./emoji.js";
import { type Exposure, expose } from "./exposure.js";
import { graphqlTools } from "./graphql.js";
import { groupExtraTools } from "./group-extras.js";
import { groupMilestoneTools, milestoneItemTools } from "./group-milestones.js";
import { groupWikiTools } from "./group-wiki.js";
import { groupTools } from "./groups.js";
import { issueExtraTools } from "./issue-extras.js";
import { issueTools } from "./issues.js";
import { labelTools } from "./labels.js";
import { mergeRequestTools } from "./merge-requests.js";
import { milestoneTools } from "./milestones.js";
import { mrDiscussionTools } from "./mr-discussions.js";
import { mrReviewTools } from "./mr-review.js";
import { pipelineTools } from "./pipelines.js";
import { projectTools } from "./projects.js";
import { repositoryTools } from "./repository.js";
import { searchTools } from "./search.js";
import { releaseTools, tagTools } from "./tags-releases.js";
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
  pipelines: [...pipelineTools, ...ciTools, ...ciCatalogTools],
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
};

/**
 * Toolsets served when FORGE_TOOLSETS is unset: everything but GraphQL (a query can reach anything)
 * and CI/CD variables (secrets, and writing them changes what pipelines run with), which are opt-in.
 */
const OPT_IN: readonly Toolset[] = ["graphql", "variables"];
export const DEFAULT_TOOLSETS = TOOLSET_NAMES.filter((t) => !OPT_IN.includes(t));

/** The tools that change the caller's own tool list (their calls answer on an event stream). */
export const LIST_CHANGING_TOOLS = new Set(["discover_tools"]);

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

/** What a configuration says about which tools are served and how (both transports read it so). */
export function toolExposure(config: Config) {
  return {
    readOnly: config.readOnly,
    permission: config.permission,
    extraTools: config.extraTools,
    deniedTools: config.deniedTools,
    defaultProject: config.defaultProject,
    toolsets: config.toolsets,
  };
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
 * Toolsets loaded on demand, per caller: a bounded map from a hash of the caller's token (never
 * the token) to the toolsets it added. Memory only, so in a stateless deployment a load is seen by
 * the replica that served it; calling discover_tools again is harmless.
 */
export class LoadedToolsets {
  private readonly byCaller = new Map<string, Set<Toolset>>();
  constructor(private readonly max = 10_000) {}

  private key(token: string | undefined): string {
    return token === undefined ? "" : createHash("sha256").update(token).digest("base64url");
  }

  get(token: string | undefined): ReadonlySet<Toolset> {
    return this.byCaller.get(this.key(token)) ?? new Set();
  }

  add(token: string | undefined, toolset: Toolset): boolean {
    const k = this.key(token);
    const set = this.byCaller.get(k) ?? new Set<Toolset>();
    if (set.has(toolset)) return false;
    set.add(toolset);
    // least recently loaded first out, so the map stays bounded
    this.byCaller.delete(k);
    this.byCaller.set(k, set);
    if (this.byCaller.size > this.max) this.byCaller.delete(this.byCaller.keys().next().value as string);
    return true;
  }
}

/**
 * The catalogue of a configuration (src/mcp/catalogue.ts): every tool it can serve, each alias as
 * a tool of its own name; per caller, tools/list shows the starting toolsets' tools and the ones
 * the caller loaded with discover_tools (never an alias), and a call to a tool of a toolset the
 * caller has not loaded is refused. apiFor maps a call's caller to a forge client.
 */
export function createCatalogue(
  opts: ToolOptions,
  apiFor: (ctx: { authInfo?: Caller | undefined }) => ForgeApi,
): Catalogue {
  const loaded = opts.loaded ?? new LoadedToolsets();
  const startList = selectTools(opts).map((t) => t.name);
  const initial = new Set(startList);
  // tools/list order: the starting tools in selectTools' order, loaded ones after, discover_tools last
  const rank = new Map(startList.map((n, i) => [n, i]));
  const order = (name: string) =>
    name === "discover_tools" ? Infinity : (rank.get(name) ?? startList.length);
  const toolsetOf = new Map<string, Toolset>();
  for (const [set, tools] of Object.entries(TOOLSETS) as [Toolset, ForgeTool[]][])
    for (const t of tools) for (const n of toolNames(t)) toolsetOf.set(n, set);
  const available = (name: string, caller: Caller | undefined) =>
    initial.has(TOOL_ALIASES.get(name) ?? name) || loaded.get(caller?.token).has(toolsetOf.get(name)!);

  const entries = [
    ...catalogueTools(servableTools(opts), apiFor, (t) => toolsetOf.get(t.name)!, opts),
    discoverTool(loaded, opts),
  ];
  const tools = new Map(entries.map((t) => [t.name, t]));
  // what tools/list may ever show: each tool once, by today's name, in the catalogue's order
  // (stable: loaded toolsets keep it among themselves)
  const listable = entries
    .filter((t) => !TOOL_ALIASES.has(t.name))
    .sort((a, b) => order(a.name) - order(b.name));
  return {
    tools,
    listed: (caller) => listable.filter((t) => t.name === "discover_tools" || available(t.name, caller)),
    refusal: (name, caller) =>
      name === "discover_tools" || available(name, caller)
        ? undefined
        : `Tool ${name} is in the ${toolsetOf.get(name)} toolset, which is not loaded: call discover_tools with category "${toolsetOf.get(name)}" first`,
  };
}

function discoverTool(loaded: LoadedToolsets, opts: ToolOptions): CatalogueTool {
  const names = TOOLSET_NAMES;
  return {
    name: "discover_tools",
    toolset: "discover",
    description: `List the toolsets this server has, or load one for this session so its tools appear in tools/list (a notifications/tools/list_changed follows). Toolsets: ${names.join(", ")}.`,
    input: {
      category: z
        .string()
        .optional()
        .describe(
          "Toolset to load (gitlab-mcp's names repositories, branches and ci are accepted); omit to list them",
        ),
    },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: async (args, ctx: CallContext) => {
      const category = args.category as string | undefined;
      const token = ctx.authInfo?.token;
      const active = new Set<Toolset>([
        ...(opts.toolsets ?? DEFAULT_TOOLSETS).filter((t): t is Toolset => t in TOOLSETS),
        ...loaded.get(token),
      ]);
      const summary = () =>
        names.map((t) => ({
          toolset: t,
          active: active.has(t),
          tools: TOOLSETS[t].filter((x) => permitted(x, opts)).map((x) => x.name),
        }));
      if (category === undefined)
        return { content: [{ type: "text", text: JSON.stringify({ toolsets: summary() }) }] };
      const wanted = category.trim().toLowerCase();
      const toolset = (names as readonly string[]).includes(wanted)
        ? (wanted as Toolset)
        : TOOLSET_ALIASES[wanted];
      if (!toolset)
        return {
          isError: true,
          content: [{ type: "text", text: `Unknown toolset "${category}"; known: ${names.join(", ")}` }],
        };
      const added = !active.has(toolset) && loaded.add(token, toolset);
      active.add(toolset);
      // on this request's own stream, so a stateless HTTP client receives it too
      if (added) await ctx.sendNotification({ method: "notifications/tools/list_changed" });
      const tools = TOOLSETS[toolset].filter((x) => permitted(x, opts)).map((x) => x.name);
      return {
        content: [
          {
            type: "text",
            text: JSON.stringify({ loaded: toolset, already_active: !added, tools }),
          },
        ],
      };
    },
  };
}
