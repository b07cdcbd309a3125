import type { ApiResult, ForgeApi } from "../forge/api.js";
import { ForgeHttpError } from "../forge/http.js";
import type { GraphqlGate } from "../forge/project-scope.js";

/**
 * Running a tool's own GraphQL document: GitLab answers errors in a 200 (`{errors}`), and a
 * mutation's refusals in its payload's `errors`; both become a forge error here. A project is named
 * by full path (`project(fullPath:)`) or by numeric id (`projects(ids:)`), so either costs one call.
 */

export async function gql(
  api: ForgeApi,
  query: string,
  variables: Record<string, unknown>,
  gate: GraphqlGate,
): Promise<Record<string, any>> {
  const r = await api.graphql(query, variables, gate);
  const body = (r.data ?? {}) as { data?: Record<string, any> | null; errors?: Array<{ message?: string }> };
  if (body.errors?.length)
    throw new ForgeHttpError(200, body.errors.map((e) => e.message ?? "error").join("; "), body);
  return body.data ?? {};
}

/** A mutation's payload, refused when it carries errors. */
export function payload(data: Record<string, any>, field: string): Record<string, any> {
  const p = data[field] as { errors?: string[] } | null | undefined;
  if (!p) throw new ForgeHttpError(200, `${field} answered nothing`, data);
  if (p.errors?.length) throw new ForgeHttpError(200, p.errors.join("; "), data);
  return p;
}

const isNumeric = (p: string | number) => typeof p === "number" || /^\d+$/.test(p);

/**
 * A document reading one project: `$project` names it (path or gid list), and `inner` is the
 * selection on the project. Answers the project object, or fails when the caller cannot see it.
 */
export async function inProject(
  api: ForgeApi,
  projectId: string | number,
  inner: string,
  decls = "",
  variables: Record<string, unknown> = {},
  /** Root fields read in the same call (users by name, ...), answered under `_root`. */
  rootExtra = "",
): Promise<Record<string, any>> {
  const byId = isNumeric(projectId);
  const head = byId
    ? `query($project: [ID!]${decls}) { projects(ids: $project, first: 1) { nodes { ${inner} } } ${rootExtra} }`
    : `query($project: ID!${decls}) { project(fullPath: $project) { ${inner} } ${rootExtra} }`;
  const data = await gql(
    api,
    head,
    { ...variables, project: byId ? [`gid://gitlab/Project/${projectId}`] : String(projectId) },
    { project: projectId },
  );
  const p = byId ? data.projects?.nodes?.[0] : data.project;
  if (!p) throw new ForgeHttpError(404, "404 Project Not Found", data);
  return { ...p, _root: data };
}

export const result = (data: unknown): ApiResult => ({ data, page: undefined });
