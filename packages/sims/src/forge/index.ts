import { STATUS_CODES } from "node:http";
import type { Express, NextFunction, Request, Response } from "express";
import type { SimContext, SimDefinition } from "../core/sim.js";
import { emptyState, type ForgeState } from "./model/state.js";
import { oauthRoutes } from "./oauth/routes.js";
import { apiAuth } from "./rest/auth.js";
import { awardEmojiRoutes } from "./rest/award-emoji.js";
import { branchRoutes } from "./rest/branches.js";
import { commitStatusRoutes } from "./rest/commit-statuses.js";
import { commitRoutes } from "./rest/commits.js";
import { dependencyProxyRoutes } from "./rest/dependency-proxy.js";
import { deploymentChangeRoutes, deploymentRoutes } from "./rest/deployments.js";
import { draftNoteRoutes } from "./rest/draft-notes.js";
import { environmentLifecycleRoutes, environmentRoutes } from "./rest/environments.js";
import { eventRoutes } from "./rest/events.js";
import { fileRoutes } from "./rest/files.js";
import { graphqlRoutes } from "./rest/graphql.js";
import { groupMilestoneRoutes } from "./rest/group-milestones.js";
import { groupRoutes } from "./rest/groups.js";
import { hookRoutes } from "./rest/hooks.js";
import { issueLinkRoutes } from "./rest/issue-links.js";
import { issueRoutes } from "./rest/issues.js";
import { iterationRoutes } from "./rest/iterations.js";
import { jobArtifactRoutes } from "./rest/job-artifacts.js";
import { jobRoutes } from "./rest/jobs.js";
import { labelRoutes } from "./rest/labels.js";
import { lintRoutes } from "./rest/lint.js";
import { memberRoutes } from "./rest/members.js";
import { mergeRequestApprovalRoutes } from "./rest/merge-request-approvals.js";
import { mergeRequestDiffRoutes } from "./rest/merge-request-diffs.js";
import { mrRoutes } from "./rest/merge-requests.js";
import { milestoneRoutes } from "./rest/milestones.js";
import { namespaceRoutes } from "./rest/namespaces.js";
import { noteRoutes } from "./rest/notes.js";
import { orbitRoutes } from "./rest/orbit.js";
import { pipelineScheduleRoutes } from "./rest/pipeline-schedules.js";
import { pipelineRoutes } from "./rest/pipelines.js";
import { projectRoutes } from "./rest/projects.js";
import { protectedBranchRoutes } from "./rest/protected-branches.js";
import { relationRoutes } from "./rest/relations.js";
import { releaseRoutes } from "./rest/releases.js";
import { repositoryRoutes } from "./rest/repositories.js";
import { searchRoutes } from "./rest/search.js";
import { tagRoutes } from "./rest/tags.js";
import { todoRoutes } from "./rest/todos.js";
import { triggerRoutes } from "./rest/triggers.js";
import { uploadRoutes } from "./rest/uploads.js";
import { userRoutes } from "./rest/users.js";
import { variableRoutes } from "./rest/variables.js";
import { wikiRoutes } from "./rest/wikis.js";
import { applySettings } from "./seed/auth.js";
import { seedDefaultIdentities } from "./seed/defaults.js";
import { DEFAULT_DATASET } from "./seed/defaults-data.js";
import { check, dumpRecords, seedRecords } from "./seed/records.js";
import { RECORDS } from "./seed/registry.js";
import { API } from "./wire/answers.js";
import { mountResources, type Resource } from "./wire/router.js";

/**
 * Rack::Attack-style throttle on the simulated clock: one fixed window over all wire requests,
 * answered like GitLab's throttle (plain-text body, RateLimit-* headers and Retry-After).
 */
function throttle(ctx: SimContext<ForgeState>) {
  return (_req: Request, res: Response, next: NextFunction) => {
    const rl = ctx.state.settings.rateLimit;
    if (!rl) return next();
    const now = ctx.clock.now();
    const w = ctx.state.rateWindow;
    const periodMs = rl.periodSeconds * 1000;
    if (now >= w.startMs + periodMs) {
      w.startMs = now;
      w.count = 0;
    }
    w.count += 1;
    if (w.count <= rl.limit) return next();
    const resetMs = w.startMs + periodMs;
    res.setHeader("RateLimit-Name", "throttle_authenticated_api");
    res.setHeader("RateLimit-Limit", String(rl.limit));
    res.setHeader("RateLimit-Observed", String(w.count));
    res.setHeader("RateLimit-Remaining", "0");
    res.setHeader("RateLimit-Reset", String(Math.ceil(resetMs / 1000)));
    res.setHeader("RateLimit-ResetTime", new Date(resetMs).toUTCString());
    res.setHeader("Retry-After", String(Math.max(1, Math.ceil((resetMs - now) / 1000))));
    res.status(429).type("text/plain").send("Retry later\n");
  };
}

/**
 * GitLab's API answers `Content-Type: application/json` without a charset (Express would add
 * `; charset=utf-8` to every string body); a Buffer body keeps the type as set.
 */
function plainJsonType(_req: Request, res: Response, next: NextFunction) {
  res.json = (body: unknown) => {
    if (!res.get("Content-Type")) res.setHeader("Content-Type", "application/json");
    return res.send(Buffer.from(JSON.stringify(body) ?? ""));
  };
  next();
}

/** The REST resources, one mount function each; their order does not matter (see wire/router.ts). */
export const RESOURCES: Resource<SimContext<ForgeState>>[] = [
  userRoutes,
  labelRoutes,
  milestoneRoutes,
  awardEmojiRoutes,
  variableRoutes,
  groupMilestoneRoutes,
  lintRoutes,
  environmentRoutes,
  deploymentRoutes,
  jobArtifactRoutes,
  releaseRoutes,
  wikiRoutes,
  uploadRoutes,
  draftNoteRoutes,
  mergeRequestApprovalRoutes,
  mergeRequestDiffRoutes,
  protectedBranchRoutes,
  commitStatusRoutes,
  issueLinkRoutes,
  todoRoutes,
  eventRoutes,
  relationRoutes,
  memberRoutes,
  hookRoutes,
  iterationRoutes,
  dependencyProxyRoutes,
  projectRoutes,
  namespaceRoutes,
  groupRoutes,
  issueRoutes,
  noteRoutes,
  mrRoutes,
  pipelineRoutes,
  jobRoutes,
  repositoryRoutes,
  fileRoutes,
  branchRoutes,
  commitRoutes,
  tagRoutes,
  searchRoutes,
  pipelineScheduleRoutes,
  triggerRoutes,
  environmentLifecycleRoutes,
  deploymentChangeRoutes,
  orbitRoutes,
];

const OAUTH_MALFORMED =
  "The request is missing a required parameter, includes an unsupported parameter value, or is otherwise malformed.";

export const definition: SimDefinition<ForgeState> = {
  name: "forge",
  basePath: "/api/v4",
  createState({ ids, clock }) {
    const state = emptyState(ids, clock);
    seedDefaultIdentities(state);
    seedRecords(RECORDS, state, DEFAULT_DATASET);
    return state;
  },
  // before the fault injector and the body parsers: their JSON answers carry no charset either
  before(app: Express) {
    app.use(["/api/v4", "/api/graphql"], plainJsonType);
  },
  routes(app: Express, ctx) {
    app.use(throttle(ctx));
    oauthRoutes(app, ctx);
    apiAuth(app, ctx);
    // every resource's routes, ranked so a literal segment wins over a parameter wherever both match
    mountResources(app, API, RESOURCES, ctx);
    graphqlRoutes(app, ctx);
    // A body the parsers refuse on an OAuth endpoint is an OAuth invalid_request, not a REST error.
    app.use("/oauth", (err: unknown, _req: Request, res: Response, next: NextFunction) => {
      const status = (err as { status?: unknown }).status;
      if (typeof status !== "number" || status >= 500 || res.headersSent) return next(err);
      res.status(400).json({ error: "invalid_request", error_description: OAUTH_MALFORMED });
    });
  },
  errorBody(status, message) {
    // GitLab's API answers unknown routes with {"error":"404 Not Found"} and other failures with
    // {"message":"<status> <reason>"}; a control-API refusal keeps its explanation.
    if (status === 404) return { error: "404 Not Found" };
    if (status === 400) return { message };
    return { message: `${status} ${STATUS_CODES[status] ?? "Error"}` };
  },
  seed(ctx, body) {
    check(
      typeof body === "object" && body !== null && !Array.isArray(body),
      "the seed must be a JSON object",
    );
    const b = body as Record<string, unknown>;
    // Applied to a copy first: a seed refused half-way (400) leaves the simulator as it was.
    const { ids, clock, ...data } = ctx.state;
    const state: ForgeState = { ...structuredClone(data), ids, clock };
    applySettings(state, b);
    seedRecords(RECORDS, state, b);
    Object.assign(ctx.state, state);
    return {
      ok: true,
      users: state.users.length,
      applications: state.applications.length,
      tokens: state.tokens.size,
      personal_access_tokens: state.pats.size,
      groups: state.groups.length,
      projects: state.projects.length,
      issues: state.issues.length,
      merge_requests: state.mergeRequests.length,
      pipelines: state.pipelines.length,
    };
  },
  dump(ctx) {
    return { settings: ctx.state.settings, ...dumpRecords(RECORDS, ctx.state) };
  },
};
