import type { Express } from "express";
import { zipSync } from "fflate";
import { parseDocument } from "yaml";
import type { SimContext } from "../../core/sim.js";
import { loadProject, requireUser } from "../model/access.js";
import { isFinal, jobJson } from "../model/ci.js";
import { jobArtifactFiles } from "../model/job-artifacts.js";
import { resolveRef } from "../model/repo.js";
import type { DeploymentRow, EnvironmentRow } from "../model/state.js";
import { ACCESS, type ForgeState, type Project } from "../model/state.js";
import { userRef } from "../model/users.js";
import { API, missing, notFound } from "../wire/answers.js";
import { paginate } from "../wire/paginate.js";
import { boolParam, compareBy, params, str } from "../wire/params.js";

/**
 * CI beside pipelines and jobs: the CI lint (`/projects/:id/ci/lint`, content or the project's own
 * `.gitlab-ci.yml`), environments and deployments, a pipeline's trigger jobs (bridges) and a job's
 * whole artifacts archive (a zip).
 */

/** Top-level keys of .gitlab-ci.yml that are not jobs. */
const RESERVED = new Set([
  "default",
  "include",
  "stages",
  "variables",
  "workflow",
  "image",
  "services",
  "cache",
  "before_script",
  "after_script",
  "spec",
  "pages:deploy",
]);

interface Lint {
  valid: boolean;
  errors: string[];
  warnings: string[];
  merged_yaml: string | null;
  includes: unknown[] | null;
  jobs?: unknown[];
}

/** A lint of one configuration, with the checks GitLab makes first: YAML, a mapping, visible jobs with a script. */
export function lintCi(content: string, includeJobs: boolean): Lint {
  const fail = (errors: string[]): Lint => ({
    valid: false,
    errors,
    warnings: [],
    merged_yaml: null,
    includes: null,
    ...(includeJobs ? { jobs: [] } : {}),
  });
  const doc = parseDocument(content);
  if (doc.errors.length)
    return fail([`Invalid configuration format: ${doc.errors[0]!.message.split("\n")[0]}`]);
  const config = doc.toJS() as unknown;
  if (!config || typeof config !== "object" || Array.isArray(config))
    return fail(["Invalid configuration format"]);
  const entries = Object.entries(config as Record<string, unknown>);
  const stages = Array.isArray((config as { stages?: unknown }).stages)
    ? ((config as { stages: unknown[] }).stages as unknown[]).map(String)
    : [".pre", "build", "test", "deploy", ".post"];
  const errors: string[] = [];
  const jobs: Array<Record<string, unknown>> = [];
  for (const [name, job] of entries) {
    if (RESERVED.has(name) || name.startsWith(".")) continue;
    if (!job || typeof job !== "object" || Array.isArray(job)) {
      errors.push(`jobs:${name} config should be a hash`);
      continue;
    }
    const j = job as Record<string, unknown>;
    if (j.script === undefined && j.trigger === undefined && j.run === undefined) {
      errors.push(`jobs:${name} config should implement the script:, run:, or trigger: keyword`);
      continue;
    }
    const stage = typeof j.stage === "string" ? j.stage : "test";
    if (!stages.includes(stage))
      errors.push(
        `${name} job: chosen stage ${stage} does not exist; available stages are ${stages.join(", ")}`,
      );
    jobs.push({
      name,
      stage,
      before_script: [],
      script: Array.isArray(j.script) ? j.script : j.script === undefined ? [] : [j.script],
      after_script: [],
      tag_list: Array.isArray(j.tags) ? j.tags : [],
      only: { refs: ["branches", "tags"] },
      except: null,
      environment: typeof j.environment === "string" ? j.environment : null,
      when: typeof j.when === "string" ? j.when : "on_success",
      allow_failure: j.allow_failure === true,
      needs: null,
    });
  }
  if (!errors.length && jobs.length === 0) errors.push("jobs config should contain at least one visible job");
  if (errors.length) return fail(errors);
  return {
    valid: true,
    errors: [],
    warnings: [],
    merged_yaml: doc.toString(),
    includes: [],
    ...(includeJobs ? { jobs } : {}),
  };
}

export function ciExtraRoutes(app: Express, ctx: SimContext<ForgeState>): void {
  const s = () => ctx.state;
  const envs = () => (s().environments ??= []);
  const deps = () => (s().deployments ??= []);
  const P = `${API}/projects/:id`;

  app.post(`${P}/ci/lint`, (req, res) => {
    const p = loadProject(s(), req, res, ACCESS.developer);
    if (!p) return;
    const b = params(req);
    const content = str(b.content);
    if (content === undefined) return missing(res, "content");
    res.json(lintCi(content, boolParam(b.include_jobs) === true));
  });

  app.get(`${P}/ci/lint`, (req, res) => {
    const p = loadProject(s(), req, res, ACCESS.developer);
    if (!p) return;
    const q = req.query as Record<string, unknown>;
    const ref = str(q.content_ref) ?? str(q.sha);
    const commit = resolveRef(p.repository, ref, p.default_branch);
    if (!commit) return void res.status(404).json({ message: "404 Commit Not Found" });
    const content = commit.files[".gitlab-ci.yml"];
    if (content === undefined)
      return void res.json({
        valid: false,
        errors: ["Please provide content of .gitlab-ci.yml"],
        warnings: [],
        merged_yaml: null,
        includes: null,
      });
    res.json(lintCi(content, boolParam(q.include_jobs) === true));
  });

  const envJson = (p: Project, e: EnvironmentRow, detail: boolean): Record<string, unknown> => {
    const last = deps()
      .filter((d) => d.environment_id === e.id)
      .sort((a, b) => b.id - a.id)[0];
    return {
      id: e.id,
      name: e.name,
      slug: e.slug,
      external_url: e.external_url,
      created_at: e.created_at,
      updated_at: e.updated_at,
      tier: e.tier,
      state: e.state,
      auto_stop_at: null,
      ...(detail ? { last_deployment: last ? depJson(p, last, false) : null } : {}),
    };
  };
  const depJson = (p: Project, d: DeploymentRow, withEnv = true): Record<string, unknown> => {
    const e = envs().find((x) => x.id === d.environment_id)!;
    const job = d.job_id === null ? undefined : s().jobs.find((j) => j.id === d.job_id);
    return {
      id: d.id,
      iid: d.iid,
      ref: d.ref,
      sha: d.sha,
      status: d.status,
      created_at: d.created_at,
      updated_at: d.updated_at,
      finished_at: d.finished_at,
      user: userRef(s(), d.user_id, ctx.origin),
      ...(withEnv ? { environment: envJson(p, e, false) } : {}),
      deployable: job ? jobJson(s(), job, ctx.origin) : null,
    };
  };

  app.get(`${P}/environments`, (req, res) => {
    const p = loadProject(s(), req, res, ACCESS.reporter);
    if (!p) return;
    const q = req.query as Record<string, unknown>;
    const search = str(q.search)?.toLowerCase();
    const rows = envs()
      .filter((e) => e.project_id === p.id)
      .filter((e) => (typeof q.name === "string" ? e.name === q.name : true))
      .filter((e) => (search ? e.name.toLowerCase().includes(search) : true))
      .filter((e) => (q.states === "available" || q.states === "stopped" ? e.state === q.states : true));
    res.json(paginate(req, res, ctx.origin, rows).map((e) => envJson(p, e, false)));
  });

  app.get(`${P}/environments/:environment_id`, (req, res) => {
    const p = loadProject(s(), req, res, ACCESS.reporter);
    if (!p) return;
    const e = envs().find((x) => x.project_id === p.id && String(x.id) === req.params.environment_id);
    if (!e) return notFound(res, "Environment");
    res.json(envJson(p, e, true));
  });

  app.post(`${P}/environments`, (req, res) => {
    const p = loadProject(s(), req, res, ACCESS.developer);
    if (!p) return;
    const b = params(req);
    const name = str(b.name)?.trim();
    if (!name) return missing(res, "name");
    if (envs().some((e) => e.project_id === p.id && e.name === name))
      return void res.status(400).json({ message: { name: ["has already been taken"] } });
    const now = s().clock.iso();
    const e: EnvironmentRow = {
      id: ++s().seq.record,
      project_id: p.id,
      name,
      slug: name
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, "-")
        .replace(/^-|-$/g, ""),
      external_url: str(b.external_url) ?? null,
      state: "available",
      tier: str(b.tier) ?? (/prod/.test(name) ? "production" : "other"),
      created_at: now,
      updated_at: now,
    };
    envs().push(e);
    res.status(201).json(envJson(p, e, false));
  });

  const ORDER: Record<string, (d: DeploymentRow) => string | number> = {
    id: (d) => d.id,
    iid: (d) => d.iid,
    created_at: (d) => d.created_at,
    updated_at: (d) => d.updated_at,
    finished_at: (d) => d.finished_at ?? "",
    ref: (d) => d.ref,
  };

  app.get(`${P}/deployments`, (req, res) => {
    const p = loadProject(s(), req, res, ACCESS.reporter);
    if (!p) return;
    const q = req.query as Record<string, unknown>;
    const env = str(q.environment);
    const envId =
      env === undefined ? undefined : envs().find((e) => e.project_id === p.id && e.name === env)?.id;
    const key = ORDER[str(q.order_by) ?? "id"];
    if (!key) return void res.status(400).json({ error: "order_by does not have a valid value" });
    const rows = deps()
      .filter((d) => d.project_id === p.id)
      .filter((d) => (env === undefined ? true : d.environment_id === envId))
      .filter((d) => (typeof q.status === "string" ? d.status === q.status : true))
      .filter((d) => (typeof q.updated_after === "string" ? d.updated_at > q.updated_after : true))
      .filter((d) => (typeof q.updated_before === "string" ? d.updated_at < q.updated_before : true))
      .sort(compareBy(key, q.sort === "desc" ? -1 : 1, (d) => d.id));
    res.json(paginate(req, res, ctx.origin, rows).map((d) => depJson(p, d)));
  });

  app.get(`${P}/deployments/:deployment_id`, (req, res) => {
    const p = loadProject(s(), req, res, ACCESS.reporter);
    if (!p) return;
    const d = deps().find((x) => x.project_id === p.id && String(x.id) === req.params.deployment_id);
    if (!d) return notFound(res, "Deployment");
    res.json(depJson(p, d));
  });

  // A deployment made by hand (GitLab's POST /deployments): names its environment, created if new.
  app.post(`${P}/deployments`, (req, res) => {
    const me = requireUser(res);
    if (!me) return;
    const p = loadProject(s(), req, res, ACCESS.developer);
    if (!p) return;
    const b = params(req);
    const absent = ["environment", "sha", "ref", "tag", "status"].filter((k) => b[k] === undefined);
    if (absent.length) return missing(res, ...absent);
    const statuses = ["running", "success", "failed", "canceled"];
    if (!statuses.includes(String(b.status)))
      return void res.status(400).json({ error: "status does not have a valid value" });
    const now = s().clock.iso();
    const name = String(b.environment);
    let e = envs().find((x) => x.project_id === p.id && x.name === name);
    if (!e) {
      e = {
        id: ++s().seq.record,
        project_id: p.id,
        name,
        slug: name
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, "-")
          .replace(/^-|-$/g, ""),
        external_url: null,
        state: "available",
        tier: /prod/.test(name) ? "production" : "other",
        created_at: now,
        updated_at: now,
      };
      envs().push(e);
    }
    const d: DeploymentRow = {
      id: ++s().seq.record,
      iid: deps().filter((x) => x.project_id === p.id).length + 1,
      project_id: p.id,
      environment_id: e.id,
      ref: String(b.ref),
      sha: String(b.sha),
      status: b.status as DeploymentRow["status"],
      user_id: me.id,
      job_id: null,
      created_at: now,
      updated_at: now,
      finished_at: b.status === "running" ? null : now,
    };
    deps().push(d);
    res.status(201).json(depJson(p, d));
  });

  app.get(`${P}/pipelines/:pipeline_id/bridges`, (req, res) => {
    const p = loadProject(s(), req, res);
    if (!p) return;
    const pl = s().pipelines.find((x) => x.project_id === p.id && String(x.id) === req.params.pipeline_id);
    if (!pl) return notFound(res);
    const q = req.query as Record<string, unknown>;
    const scope = q.scope === undefined ? undefined : ([] as unknown[]).concat(q.scope).map(String);
    const rows = s()
      .jobs.filter((j) => j.pipeline_id === pl.id && j.trigger !== undefined)
      .filter((j) => (scope ? scope.includes(j.status) : true))
      .sort((a, b) => b.id - a.id);
    res.json(
      paginate(req, res, ctx.origin, rows).map((j) => {
        const {
          artifacts: _a,
          artifacts_file: _f,
          ...job
        } = jobJson(s(), j, ctx.origin) as Record<string, unknown>;
        return { ...job, downstream_pipeline: null };
      }),
    );
  });

  // The job's whole artifacts archive, as a zip (404 while the job runs or when it kept nothing).
  app.get(`${P}/jobs/:job_id/artifacts`, (req, res) => {
    const p = loadProject(s(), req, res);
    if (!p) return;
    const job = s().jobs.find((j) => j.project_id === p.id && String(j.id) === req.params.job_id);
    if (!job) return notFound(res);
    const files = jobArtifactFiles(s(), job);
    if (!isFinal(job.status) || Object.keys(files).length === 0) return notFound(res);
    const zip = zipSync(
      Object.fromEntries(Object.entries(files).map(([path, text]) => [path, Buffer.from(text)])),
      { mtime: new Date(job.finished_at ?? job.created_at) },
    );
    res
      .status(200)
      .type("application/zip")
      .setHeader("Content-Disposition", `attachment; filename="artifacts.zip"`)
      .send(Buffer.from(zip));
  });
}
