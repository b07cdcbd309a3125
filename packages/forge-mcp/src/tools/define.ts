import { z } from "zod";
import type { PermissionMode } from "../config.js";
import type { ApiResult, ForgeApi } from "../forge/api.js";
import { ForgeHttpError } from "../forge/http.js";
import { decodedPath, numericId, ProjectNotResolved } from "../forge/project-ids.js";
import { ProjectOutsideScope } from "../forge/project-scope.js";
import type { CallContext, CatalogueTool, ToolAnnotations, ToolResult } from "../mcp/catalogue.js";
import { AddressRefused, addressedBy, missingAddress, resolveAddress, withUrl } from "./address.js";
import { type Asker, type ConfirmMode, confirmDestructive } from "./confirm.js";
import type { MaskPolicy, MaskScope } from "./masking.js";
import { type Output, outputOf, outputSchema, shape } from "./results.js";

/**
 * One declarative shape for every forge tool: a zod input, whether it writes (and whether that
 * write destroys something), the forge endpoint it calls, and a function from (api, args) to that
 * one forge call. The catalogue (src/mcp/catalogue.ts) takes them with read-only mode applied; the
 * wrapper turns forge errors into MCP tool errors carrying the forge's message (never a token).
 */

export interface ForgeTool<S extends z.ZodRawShape = z.ZodRawShape> {
  /** gitlab-mcp's name where it has a tool doing the same job, so its users' names carry over. */
  name: string;
  /**
   * Earlier forge-mcp names of this tool: still callable (and accepted wherever tool names are
   * configured) for one release, never listed.
   */
  aliases?: string[];
  description: string;
  write: boolean;
  /** A write that deletes or cannot be undone (MCP destructiveHint). */
  destructive?: boolean;
  /** The forge request, for the docs table: `GET /projects/:id/labels`. */
  endpoint: string;
  input: S;
  run(api: ForgeApi, args: z.infer<z.ZodObject<S>>, call: RunContext): Promise<ApiResult | string>;
}

/** What a running tool may read of its request: its end, and a way to report progress. */
export interface RunContext {
  /** Aborted when the caller cancels the request or goes away. */
  signal: AbortSignal;
  /** Sends notifications/progress when the caller gave a progressToken (else does nothing). */
  progress(progress: number, total?: number, message?: string): Promise<void>;
}

function runContext(ctx: CallContext): RunContext {
  const token = ctx.progressToken;
  return {
    // read only by a tool that reads it (the caller's signal may be made on demand)
    get signal() {
      return ctx.signal;
    },
    progress: async (progress, total, message) => {
      if (token === undefined) return;
      const params: Record<string, unknown> = { progressToken: token, progress };
      if (total !== undefined) params.total = total;
      if (message !== undefined) params.message = message;
      // a lost notification must not fail the call it reports on
      await ctx.sendNotification({ method: "notifications/progress", params }).catch(() => {});
    },
  };
}

export function tool<S extends z.ZodRawShape>(t: ForgeTool<S>): ForgeTool {
  return t as unknown as ForgeTool;
}

export const projectId = z
  .union([z.string().min(1), z.number().int()])
  .describe("Project id or full path (group/project)");
export const groupId = z
  .union([z.string().min(1), z.number().int()])
  .describe("Group id or full path (group/subgroup)");
export const iid = z.number().int().positive();
export const id = z.number().int().positive();
export const pagination = {
  page: z.number().int().min(1).optional(),
  per_page: z.number().int().min(1).max(100).optional().describe("Default 20"),
};
/** A GraphQL connection's page: its size and the cursor it starts after. */
export const cursorPagination = {
  first: z.number().int().min(1).max(100).default(20),
  after: z.string().optional().describe("endCursor of the previous page"),
};
/** The filters GitLab's group lists share: ancestors' and descendants' records, and update times. */
export const groupTreeFilters = {
  include_ancestors: z.boolean().optional(),
  include_descendants: z.boolean().optional(),
  updated_before: z.string().optional().describe("ISO 8601 time"),
  updated_after: z.string().optional().describe("ISO 8601 time"),
};

/**
 * A forge answer as the tool's result, in compact JSON (the model reads it as well, and
 * indentation costs it tokens). A read tool's answer is shaped by ./results.ts (slim by the tool's
 * kind unless the caller asked for the forge's whole objects) and comes as structuredContent as
 * well, its text the same object; a write's answer is slim by its kind when it has one (the
 * object it made or changed), else the forge's as it came.
 */
function toResult(r: ApiResult | string, output: Output, full: boolean, read: boolean): ToolResult {
  // A 204 (deletions) has no body: say what happened rather than print an empty string.
  const data = typeof r === "string" ? r : r.data === "" || r.data === undefined ? "Done." : r.data;
  const page = typeof r === "string" ? undefined : r.page;
  if (!read && output === "object") {
    const payload = page ? { items: data, pagination: page } : data;
    return {
      content: [{ type: "text", text: typeof payload === "string" ? payload : JSON.stringify(payload) }],
    };
  }
  const structured = shape(output, data, page, full);
  const content: ToolResult["content"] = [
    { type: "text", text: typeof data === "string" ? data : JSON.stringify(structured) },
  ];
  return read ? { content, structuredContent: structured } : { content };
}

export function annotations(t: ForgeTool): ToolAnnotations {
  return {
    readOnlyHint: !t.write,
    destructiveHint: t.write && (t.destructive ?? false),
    idempotentHint: !t.write,
    openWorldHint: true,
  };
}

/**
 * Whether calling the tool changes something at the forge, read from its MCP annotations (the
 * one place): the step-up check asks for the write scope before such a tool runs.
 */
export function writes(t: ForgeTool): boolean {
  return !annotations(t).readOnlyHint;
}

/** What a deployment exposes (./exposure.ts decides with it which tools exist). */
export interface Exposure {
  /** Default full; `readOnly: true` (FORGE_READ_ONLY) means readonly whatever this says. */
  permission?: PermissionMode | undefined;
  readOnly?: boolean | undefined;
  /** Tool names served on top of the selected toolsets (GITLAB_TOOLS). */
  extraTools?: string[] | undefined;
  /** GITLAB_DENIED_TOOLS_REGEX. */
  deniedTools?: RegExp | undefined;
  /**
   * gitlab-mcp's default project (the one entry of GITLAB_ALLOWED_PROJECT_IDS, or GITLAB_PROJECT_ID
   * without an allow-list): every tool's `project_id` becomes optional and an omitted one is this.
   */
  defaultProject?: string | undefined;
}

/**
 * A tool's input as registered: with a default project, `project_id` is optional (described as
 * defaulting to it), so a call that omits it passes validation and is filled in before it runs.
 */
function inputFor(t: ForgeTool, defaultProject: string | undefined): z.ZodRawShape {
  const field = t.input.project_id as z.ZodType | undefined;
  // a tool answering objects of a kind answers them slim unless asked for the forge's whole ones
  let input = outputOf(t.name) === "object" ? t.input : { ...t.input, full_response: fullResponse };
  if (defaultProject && field) {
    const described = field.description ? `${field.description}. ` : "";
    input = {
      ...input,
      project_id: field.optional().describe(`${described}Optional: defaults to ${defaultProject}`),
    };
  }
  // a tool taking a project and an iid takes the object's web URL instead (./address.ts)
  const key = addressedBy(t.input);
  return key ? withUrl(input, key) : input;
}

const fullResponse = z.boolean().optional().describe("true: the forge's whole objects, not the slim default");

/**
 * The permission mode and the deny regex, read from the tool's annotations: readonly drops every
 * tool whose readOnlyHint is false, modify every tool whose destructiveHint is true. The catalogue
 * asks this for every tool, so a tool added later (or loaded on demand) is covered as well.
 */
export function permitted(t: ForgeTool, e: Exposure): boolean {
  const mode = e.readOnly ? "readonly" : (e.permission ?? "full");
  const a = annotations(t);
  if (mode === "readonly" && !a.readOnlyHint) return false;
  if (mode === "modify" && a.destructiveHint) return false;
  // an earlier name of the tool (an alias) is denied as the tool itself
  if (toolNames(t).some((n) => e.deniedTools?.test(n))) return false;
  return true;
}

/** Every name a tool answers to: its own, then its aliases. */
export function toolNames(t: ForgeTool): string[] {
  return [t.name, ...(t.aliases ?? [])];
}

/**
 * The catalogue's entries for the tools the policy permits: each tool under each name it answers
 * to, its handler filling in the default project, asking for confirmation, calling the forge and
 * telling the observer.
 */
export function catalogueTools(
  tools: ForgeTool[],
  apiFor: (ctx: { authInfo?: CallContext["authInfo"] }) => ForgeApi,
  toolsetOf: (t: ForgeTool) => string,
  opts: Exposure & {
    confirm?: { mode: ConfirmMode; asker: Asker } | undefined;
    /** Told of every call as it ends (metrics, audit): the one place all tool calls pass. */
    observe?: ((call: ToolCall) => void) | undefined;
    /** GITLAB_MASKING_ENABLED: every answer masked here, whatever lane carries it (./masking.ts). */
    mask?: MaskPolicy | undefined;
  },
): CatalogueTool[] {
  const entries: CatalogueTool[] = [];
  for (const t of tools) {
    if (!permitted(t, opts)) continue;
    const input = inputFor(t, opts.defaultProject);
    const fill = opts.defaultProject !== undefined && t.input.project_id !== undefined;
    const addressKey = addressedBy(t.input);
    const output = outputOf(t.name);
    const call = async (
      args: Record<string, unknown>,
      ctx: CallContext,
      api: ForgeApi,
    ): Promise<ToolResult> => {
      // a destructive tool asks the person first (annotations: the one source of destructiveHint)
      if (opts.confirm && annotations(t).destructiveHint) {
        const refused = await confirmDestructive(opts.confirm.mode, opts.confirm.asker, ctx, t.name, args);
        if (refused) return refusal(refused);
      }
      try {
        const { full_response, ...rest } = args;
        return toResult(
          await t.run(api, rest as never, runContext(ctx)),
          output,
          full_response === true,
          !t.write,
        );
      } catch (err) {
        return failure(err);
      }
    };
    /** A url read into project_id and the id; then the default project; then both must be there. */
    const address = async (
      given: Record<string, unknown>,
      api: ForgeApi,
    ): Promise<{ args: Record<string, unknown> } | { refused: ToolResult }> => {
      let args = given;
      if (addressKey) {
        try {
          args = await resolveAddress(api, addressKey, given);
        } catch (err) {
          return { refused: failure(err) };
        }
      }
      if (fill && args.project_id === undefined) args = { ...args, project_id: opts.defaultProject };
      const missing = addressKey && missingAddress(addressKey, args);
      return missing ? { refused: refusal(missing) } : { args };
    };
    /**
     * The call under masking: a policy bound to project ids gets the projects named by path as
     * their ids (./project-ids.ts; refused, not run, when one does not resolve), and the call runs
     * with those ids, so it reaches the project whose policy masks it.
     */
    const masked = async (
      args: Record<string, unknown>,
      ctx: CallContext,
      api: ForgeApi,
    ): Promise<ToolResult> => {
      if (!opts.mask) return call(args, ctx, api);
      let pinned = args;
      if (opts.mask.bindsIds) {
        try {
          for (const k of projectFields(args))
            if (numericId(args[k] as string) === undefined)
              pinned = { ...pinned, [k]: await api.projectId(args[k] as string) };
        } catch (err) {
          return failure(err);
        }
      }
      const masker = opts.mask.select(maskScope(t, pinned, api.base));
      return "refused" in masker ? refusal(masker.refused) : masker.result(await call(pinned, ctx, api));
    };
    // a writing call's audit line names the project it changed (ProjectNote); a read's has none
    const audited = opts.observe !== undefined && writes(t);
    const bindsIds = opts.mask?.bindsIds === true;
    const handler = async (given: Record<string, unknown>, ctx: CallContext) => {
      // one forge client per call; a writing call's tells its note which ids its projects reached
      const note = audited ? new ProjectNote() : undefined;
      const api = note ? apiFor(ctx).reporting(note.seen) : apiFor(ctx);
      const addressed = await address(given, api);
      const args = "refused" in addressed ? given : addressed.args;
      note?.named(args);
      const result = "refused" in addressed ? addressed.refused : await masked(args, ctx, api);
      opts.observe?.({
        tool: t,
        authInfo: ctx.authInfo,
        outcome: outcomeOf(result),
        project: note?.project(bindsIds || api.resolvesPaths),
      });
      return result;
    };
    const shared = {
      toolset: toolsetOf(t),
      description: t.description,
      input,
      annotations: annotations(t),
      endpoint: t.endpoint,
      ...(t.write ? {} : { output: outputSchema(output) }),
      handler,
    };
    for (const name of toolNames(t)) entries.push({ name, ...shared });
  }
  return entries;
}

/**
 * What a managed masking policy picks by: the call's forge and the projects its arguments name
 * (`project_id`, `*_project_id`); a tool that needs a project and was not pointed at a group instead
 * is a project tool even when it names none.
 */
function maskScope(t: ForgeTool, args: Record<string, unknown>, apiUrl: string): MaskScope {
  const projects = projectFields(args).map((k) => args[k]);
  const field = t.input.project_id as z.ZodType | undefined;
  const projectTool = field !== undefined && !field.isOptional() && args.group_id === undefined;
  return { apiUrl, projects, projectTool };
}

/** The arguments that name a project: `project_id` and `*_project_id`, when given. */
function projectFields(args: Record<string, unknown>): string[] {
  return Object.keys(args).filter(
    (k) => (k === "project_id" || k.endsWith("_project_id")) && args[k] !== undefined && args[k] !== "",
  );
}

/** One finished tool call, as observers see it. */
export interface ToolCall {
  tool: ForgeTool;
  authInfo: { token: string; extra?: Record<string, unknown> } | undefined;
  /** ok; error: the forge or the tool failed; refused: a control (confirmation, project list) said no. */
  outcome: "ok" | "error" | "refused";
  /** A writing call's project, as its audit line names it (undefined: a read, or no project named). */
  project?: AuditedProject | undefined;
}

/** The project of a writing call: what the forge was called for, and what the caller named. */
export interface AuditedProject {
  /**
   * The numeric id the call reached the forge by (given, or resolved from a path by a control that
   * binds ids: the allow-list, a managed masking policy); the path as given where no control
   * resolves paths (the forge resolved it); null when such a control refused the path, or the call
   * ended, before it was resolved (no id is guessed).
   */
  called: string | null;
  /** What the caller named (project_id as given, or a url's project path), when it is not `called`. */
  given?: string;
}

/**
 * What a writing call's audit line names as its project, learnt as the call runs: its forge client
 * tells `seen` of each project reference it turns into the numeric id it calls the forge by, and the
 * id of the one the call's first project argument names is kept (the last one: a call that reads
 * and then writes writes by it). Made only for writing calls, so a read allocates nothing for it.
 */
class ProjectNote {
  private given: string | undefined;
  /** `given` as paths compare: `acme%2Fwidgets` as `acme/widgets`, any case. */
  private key = "";
  private id: number | undefined;

  readonly seen = (ref: string, id: number): void => {
    if (this.given !== undefined && pathKey(ref) === this.key) this.id = id;
  };

  /** The call's arguments once its url (if any) is read into project_id and the default filled in. */
  named(args: Record<string, unknown>): void {
    const k = projectFields(args)[0];
    this.given = k === undefined ? undefined : String(args[k]);
    this.key = this.given === undefined ? "" : pathKey(this.given);
  }

  /** The project as the audit line names it; `resolving`: a control turns paths into ids first. */
  project(resolving: boolean): AuditedProject | undefined {
    const given = this.given;
    if (given === undefined) return undefined;
    if (numericId(given) !== undefined) return { called: given };
    if (this.id !== undefined) return { called: String(this.id), given };
    return resolving ? { called: null, given } : { called: given };
  }
}

function pathKey(ref: string): string {
  return decodedPath(ref).toLowerCase();
}

const REFUSED = Symbol("refused");

/** A tool's failure as its result: a control's refusal, the forge's error, or the tool's own. */
function failure(err: unknown): ToolResult {
  if (
    err instanceof ProjectOutsideScope ||
    err instanceof ProjectNotResolved ||
    err instanceof AddressRefused
  )
    return refusal(err.message);
  const message =
    err instanceof ForgeHttpError
      ? `Forge error${err.status ? ` ${err.status}` : ""}: ${err.message}`
      : `Tool failed: ${(err as Error).message}`;
  return { isError: true, content: [{ type: "text", text: message }] };
}

function refusal(text: string): ToolResult {
  return Object.assign({ isError: true, content: [{ type: "text" as const, text }] }, { [REFUSED]: true });
}

function outcomeOf(r: ToolResult): ToolCall["outcome"] {
  if (!r.isError) return "ok";
  return (r as { [REFUSED]?: boolean })[REFUSED] ? "refused" : "error";
}
