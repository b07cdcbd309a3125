import { parseDocument } from "yaml";
import type { SimContext } from "../../core/sim.js";
import { findProject, loadProject, projectAccessLevel } from "../model/access.js";
import { resolveRef } from "../model/repo.js";
import { ACCESS, type ForgeState, type ForgeUser } from "../model/state.js";
import { missing } from "../wire/answers.js";
import { boolParam, params, str } from "../wire/params.js";
import type { Routes } from "../wire/router.js";
import { type Args, connection, GqlError, type Obj } from "./graphql-kit.js";

/** The CI lint (`/projects/:id/ci/lint`): posted content, or the project's own `.gitlab-ci.yml`. */

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

export function lintRoutes(r: Routes, ctx: SimContext<ForgeState>): void {
  const s = () => ctx.state;

  r.post("/projects/:id/ci/lint", (req, res) => {
    const p = loadProject(s(), req, res, ACCESS.developer);
    if (!p) return;
    const b = params(req);
    const content = str(b.content);
    if (content === undefined) return missing(res, "content");
    res.json(lintCi(content, boolParam(b.include_jobs) === true));
  });

  r.get("/projects/:id/ci/lint", (req, res) => {
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
}

/**
 * GraphQL's `ciConfig(projectPath:, content:)`, the lint GitLab's pipeline editor runs: the same
 * checks as the REST lint, answered as a CiConfig (status VALID or INVALID, errors, the merged YAML,
 * and the jobs grouped by stage). It needs the developer access creating a pipeline needs.
 */
export function ciConfigGraphql(s: ForgeState, me: ForgeUser | null) {
  return {
    ciConfig: (a: Args): Obj | null => {
      const p = typeof a.projectPath === "string" ? findProject(s, a.projectPath) : undefined;
      if (!p || !me || projectAccessLevel(s, me, p) < ACCESS.developer)
        throw new GqlError(
          "The resource that you are attempting to access does not exist or you don't have permission to perform this action",
        );
      if (typeof a.content !== "string")
        throw new GqlError("Argument 'content' on Field 'ciConfig' is missing");
      const lint = lintCi(a.content, true);
      const jobs = (lint.jobs ?? []) as Array<Record<string, unknown> & { name: string; stage: string }>;
      const stageNames = [...new Set(jobs.map((j) => j.stage))];
      const list = <T>(rows: T[], node: (x: T) => Obj, type: string) => connection(rows, {}, node, type);
      return {
        __typename: "CiConfig",
        status: lint.valid ? "VALID" : "INVALID",
        errors: lint.errors,
        warnings: lint.warnings,
        mergedYaml: lint.merged_yaml,
        includes: [],
        stages: list(
          stageNames,
          (stage) => ({
            __typename: "CiConfigStage",
            name: stage,
            groups: list(
              jobs.filter((j) => j.stage === stage),
              (j) => ({
                __typename: "CiConfigGroup",
                name: j.name,
                size: 1,
                jobs: list(
                  [j],
                  (x) => ({
                    __typename: "CiConfigJob",
                    name: x.name,
                    groupName: x.name,
                    stage: x.stage,
                    script: x.script,
                    beforeScript: x.before_script,
                    afterScript: x.after_script,
                    allowFailure: x.allow_failure,
                    when: x.when,
                    environment: x.environment,
                    tags: x.tag_list,
                    only: { __typename: "CiConfigJobRestriction", refs: ["branches", "tags"] },
                    except: null,
                    needs: list([], () => ({ __typename: "CiConfigNeed" }), "CiConfigNeed"),
                  }),
                  "CiConfigJob",
                ),
              }),
              "CiConfigGroup",
            ),
          }),
          "CiConfigStage",
        ),
      };
    },
  };
}
