import { z } from "zod";
import { enc } from "../forge/api.js";
import { ForgeTooLarge } from "../forge/http.js";
import { id, pagination, projectId, tool } from "./define.js";
import { runGraphql } from "./graphql.js";

/**
 * CI beside pipelines and jobs, by gitlab-mcp's names: the CI lint (given content, or the project's
 * own .gitlab-ci.yml at a ref), deployments and environments, a pipeline's trigger jobs (bridges),
 * and a job's whole artifacts archive.
 */

const proj = (p: string | number) => `/projects/${enc(p)}`;
const P = "/projects/:id";

/** download_job_artifacts: the archive travels base64 in the result, so it is bounded. */
const MAX_ARCHIVE = 4 * 1024 * 1024;

const jobScope = z.enum([
  "canceled",
  "canceling",
  "created",
  "failed",
  "manual",
  "pending",
  "preparing",
  "running",
  "scheduled",
  "skipped",
  "success",
  "waiting_for_resource",
]);

export const ciTools = [
  tool({
    name: "validate_ci_lint",
    description: "Lint CI/CD YAML in a project's context: errors, warnings, merged YAML.",
    write: false,
    endpoint: `POST ${P}/ci/lint`,
    input: {
      project_id: projectId,
      content: z.string().min(1),
      dry_run: z.boolean().optional(),
      include_jobs: z.boolean().optional(),
      ref: z.string().optional(),
    },
    run: (api, { project_id, ...body }) => api.post(`${proj(project_id)}/ci/lint`, body),
  }),
  tool({
    name: "validate_project_ci_lint",
    description: "Check a project's own .gitlab-ci.yml, at its default branch or at content_ref.",
    write: false,
    endpoint: `GET ${P}/ci/lint`,
    input: {
      project_id: projectId,
      content_ref: z.string().optional(),
      dry_run: z.boolean().optional(),
      dry_run_ref: z.string().optional(),
      include_jobs: z.boolean().optional(),
    },
    run: (api, { project_id, ...q }) => api.get(`${proj(project_id)}/ci/lint`, q),
  }),
  tool({
    name: "list_deployments",
    description: "List a project's deployments.",
    write: false,
    endpoint: `GET ${P}/deployments`,
    input: {
      project_id: projectId,
      environment: z.string().optional(),
      status: z.enum(["created", "running", "success", "failed", "canceled", "blocked"]).optional(),
      updated_after: z.string().optional(),
      updated_before: z.string().optional(),
      order_by: z.enum(["id", "iid", "created_at", "updated_at", "finished_at", "ref"]).optional(),
      sort: z.enum(["asc", "desc"]).optional(),
      ...pagination,
    },
    run: (api, { project_id, ...q }) => api.get(`${proj(project_id)}/deployments`, q),
  }),
  tool({
    name: "get_deployment",
    description: "Get a deployment (environment, commit, job).",
    write: false,
    endpoint: `GET ${P}/deployments/:deployment_id`,
    input: { project_id: projectId, deployment_id: id },
    run: (api, a) => api.get(`${proj(a.project_id)}/deployments/${a.deployment_id}`),
  }),
  tool({
    name: "list_environments",
    description: "List the environments of a project.",
    write: false,
    endpoint: `GET ${P}/environments`,
    input: {
      project_id: projectId,
      name: z.string().optional(),
      search: z.string().optional(),
      states: z.enum(["available", "stopped"]).optional(),
      ...pagination,
    },
    run: (api, { project_id, ...q }) => api.get(`${proj(project_id)}/environments`, q),
  }),
  tool({
    name: "get_environment",
    description: "Get one environment with its last deployment.",
    write: false,
    endpoint: `GET ${P}/environments/:environment_id`,
    input: { project_id: projectId, environment_id: id },
    run: (api, a) => api.get(`${proj(a.project_id)}/environments/${a.environment_id}`),
  }),
  tool({
    name: "list_pipeline_trigger_jobs",
    description: "List a pipeline's trigger jobs (bridges).",
    write: false,
    endpoint: `GET ${P}/pipelines/:pipeline_id/bridges`,
    input: { project_id: projectId, pipeline_id: id, scope: jobScope.optional(), ...pagination },
    run: (api, { project_id, pipeline_id, ...q }) =>
      api.get(`${proj(project_id)}/pipelines/${pipeline_id}/bridges`, q),
  }),
  tool({
    name: "download_job_artifacts",
    description:
      "Download a job's artifacts zip (base64), refused past max_bytes; for one file use get_job_artifact_file.",
    write: false,
    endpoint: `GET ${P}/jobs/:job_id/artifacts`,
    input: {
      project_id: projectId,
      job_id: id,
      max_bytes: z
        .number()
        .int()
        .min(1)
        .max(MAX_ARCHIVE)
        .default(1024 * 1024),
    },
    run: async (api, a) => {
      try {
        const r = await api.bytes(`${proj(a.project_id)}/jobs/${a.job_id}/artifacts`, a.max_bytes);
        const bytes = r.data as Buffer;
        return {
          data: {
            job_id: a.job_id,
            filename: "artifacts.zip",
            size_bytes: bytes.length,
            encoding: "base64",
            content_base64: bytes.toString("base64"),
          },
          page: undefined,
        };
      } catch (err) {
        if (err instanceof ForgeTooLarge)
          throw new Error(
            `the artifacts archive of job ${a.job_id} is larger than max_bytes (${a.max_bytes}); read single files with get_job_artifact_file`,
          );
        throw err;
      }
    },
  }),
];

const RESOURCE_FIELDS =
  "id name description fullPath webPath icon starCount topics verificationLevel visibilityLevel latestReleasedAt last30DayUsageCount";

/**
 * The CI/CD catalog exists only in GitLab's GraphQL API, so these two are GraphQL reads (one call
 * each); while GITLAB_ALLOWED_PROJECT_IDS restricts the projects they are refused, as GraphQL is.
 */
export const ciCatalogTools = [
  tool({
    name: "list_ci_catalog_resources",
    description: "List CI/CD catalog resources (component projects); page with first/after.",
    write: false,
    endpoint: "POST /api/graphql (ciCatalogResources)",
    input: {
      search: z.string().optional(),
      first: z.number().int().min(1).max(100).optional(),
      after: z.string().optional().describe("endCursor of the previous page"),
      group_ids: z.array(z.string()).optional().describe("GraphQL group ids"),
      scope: z.enum(["ALL", "NAMESPACES"]).optional(),
      sort: z
        .enum([
          "CREATED_ASC",
          "CREATED_DESC",
          "LATEST_RELEASED_AT_ASC",
          "LATEST_RELEASED_AT_DESC",
          "NAME_ASC",
          "NAME_DESC",
          "STAR_COUNT_ASC",
          "STAR_COUNT_DESC",
          "USAGE_COUNT_ASC",
          "USAGE_COUNT_DESC",
        ])
        .optional(),
      topics: z.array(z.string()).optional(),
      verification_level: z
        .enum([
          "GITLAB_MAINTAINED",
          "GITLAB_PARTNER_MAINTAINED",
          "UNVERIFIED",
          "VERIFIED_CREATOR_MAINTAINED",
          "VERIFIED_CREATOR_SELF_MANAGED",
        ])
        .optional(),
    },
    run: (api, a) =>
      runGraphql(
        api,
        `query($search: String, $first: Int, $after: String, $groupIds: [GroupID!], $scope: CiCatalogResourceScope, $sort: CiCatalogResourceSort, $topics: [String!], $verificationLevel: CiCatalogResourceVerificationLevel) {
  ciCatalogResources(search: $search, first: $first, after: $after, groupIds: $groupIds, scope: $scope, sort: $sort, topics: $topics, verificationLevel: $verificationLevel) {
    nodes { ${RESOURCE_FIELDS} }
    pageInfo { hasNextPage endCursor }
  }
}`,
        {
          search: a.search,
          first: a.first ?? 20,
          after: a.after,
          groupIds: a.group_ids,
          scope: a.scope,
          sort: a.sort,
          topics: a.topics,
          verificationLevel: a.verification_level,
        },
      ),
  }),
  tool({
    name: "get_ci_catalog_resource",
    description: "Get a CI/CD catalog resource: newest versions, components, inputs.",
    write: false,
    endpoint: "POST /api/graphql (ciCatalogResource)",
    input: {
      id: z.string().min(1).optional().describe("GraphQL id (or full_path)"),
      full_path: z.string().min(1).optional(),
      version_limit: z.number().int().min(1).max(20).optional().describe("Default 5"),
      component_limit: z.number().int().min(1).max(50).optional().describe("Default 20"),
      component_name: z.string().optional().describe("Only this component"),
      include_readme: z.boolean().optional(),
    },
    run: async (api, a) => {
      if ((a.id === undefined) === (a.full_path === undefined))
        throw new Error("give exactly one of id and full_path");
      const r = await runGraphql(
        api,
        `query($id: CiCatalogResourceID, $fullPath: ID, $versionLimit: Int!, $componentLimit: Int!) {
  ciCatalogResource(id: $id, fullPath: $fullPath) {
    ${RESOURCE_FIELDS}
    versions(first: $versionLimit) {
      nodes {
        id name path createdAt releasedAt${a.include_readme ? " readme" : ""}
        semver { major minor patch }
        components(first: $componentLimit) {
          nodes { id name description includePath last30DayUsageCount inputs { name description type required default options regex } }
          pageInfo { hasNextPage endCursor }
        }
      }
      pageInfo { hasNextPage endCursor }
    }
  }
}`,
        {
          id: a.id,
          fullPath: a.full_path,
          versionLimit: a.version_limit ?? 5,
          componentLimit: a.component_limit ?? 20,
        },
      );
      type Version = { components?: { nodes?: Array<{ name?: string }> } };
      const resource = (r.data as { data?: { ciCatalogResource?: { versions?: { nodes?: Version[] } } } })
        .data?.ciCatalogResource;
      if (a.component_name !== undefined)
        for (const v of resource?.versions?.nodes ?? [])
          if (v.components?.nodes)
            v.components.nodes = v.components.nodes.filter((c) => c.name === a.component_name);
      return r;
    },
  }),
];
