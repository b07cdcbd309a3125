import { z } from "zod";
import { cursorPagination, projectId, tool } from "./define.js";
import { gql, inProject, payload, result } from "./gql.js";

/**
 * Vulnerabilities (GitLab Ultimate) through GraphQL, where GitLab keeps them (the REST
 * vulnerability API is deprecated). A vulnerability id is numeric or a global id; with
 * GITLAB_ALLOWED_PROJECT_IDS its project is looked up first and must be listed.
 */

const FIELDS =
  "id title description severity state reportType dismissalReason detectedAt updatedAt webUrl project { id fullPath }";

const vulnerabilityId = z
  .union([z.string().regex(/^(\d+|gid:\/\/gitlab\/Vulnerability\/\d+)$/), z.number().int().positive()])
  .describe("The vulnerability's id, numeric or gid://gitlab/Vulnerability/<id>");
const toGid = (v: string | number) =>
  String(v).startsWith("gid://") ? String(v) : `gid://gitlab/Vulnerability/${v}`;

export const vulnerabilityTools = [
  tool({
    name: "list_project_vulnerabilities",
    description:
      "List a project's vulnerabilities, newest first, filtered by state, severity and report type (cursor paging with first/after).",
    write: false,
    endpoint: "POST /api/graphql (Project.vulnerabilities)",
    input: {
      project_id: projectId,
      state: z.enum(["detected", "confirmed", "resolved", "dismissed"]).optional(),
      severity: z.enum(["critical", "high", "medium", "low", "info", "unknown"]).optional(),
      report_type: z
        .enum([
          "sast",
          "dast",
          "dependency_scanning",
          "container_scanning",
          "secret_detection",
          "coverage_fuzzing",
          "api_fuzzing",
          "cluster_image_scanning",
          "generic",
        ])
        .optional(),
      ...cursorPagination,
    },
    run: async (api, a) => {
      const p = await inProject(
        api,
        a.project_id,
        `vulnerabilities(state: $state, severity: $severity, reportType: $reportType, first: $first, after: $after) { nodes { ${FIELDS} } pageInfo { hasNextPage endCursor } }`,
        ", $state: [VulnerabilityState!], $severity: [VulnerabilitySeverity!], $reportType: [VulnerabilityReportType!], $first: Int, $after: String",
        {
          state: a.state ? [a.state.toUpperCase()] : undefined,
          severity: a.severity ? [a.severity.toUpperCase()] : undefined,
          reportType: a.report_type ? [a.report_type.toUpperCase()] : undefined,
          first: a.first,
          after: a.after,
        },
      );
      return result(p.vulnerabilities);
    },
  }),
  tool({
    name: "get_vulnerability",
    description: "Get one vulnerability: severity, state, report type, dismissal reason and its project.",
    write: false,
    endpoint: "POST /api/graphql (Query.vulnerability)",
    input: { vulnerability_id: vulnerabilityId },
    run: async (api, a) => {
      const id = toGid(a.vulnerability_id);
      const data = await gql(
        api,
        `query($id: VulnerabilityID!) { vulnerability(id: $id) { ${FIELDS} } }`,
        { id },
        { ownerOf: id },
      );
      if (!data.vulnerability) throw new Error(`vulnerability ${a.vulnerability_id} was not found`);
      return result(data.vulnerability);
    },
  }),
  tool({
    name: "confirm_vulnerability",
    description: "Confirm a vulnerability as a real finding to fix, with an optional comment.",
    write: true,
    endpoint: "POST /api/graphql (vulnerabilityConfirm)",
    input: { vulnerability_id: vulnerabilityId, comment: z.string().max(50_000).optional() },
    run: async (api, a) => {
      const id = toGid(a.vulnerability_id);
      const data = await gql(
        api,
        `mutation($id: VulnerabilityID!, $comment: String) { vulnerabilityConfirm(input: {id: $id, comment: $comment}) { vulnerability { ${FIELDS} } errors } }`,
        { id, comment: a.comment },
        { ownerOf: id },
      );
      return result(payload(data, "vulnerabilityConfirm").vulnerability);
    },
  }),
  tool({
    name: "dismiss_vulnerability",
    description: "Dismiss a vulnerability with a reason and an optional comment.",
    write: true,
    endpoint: "POST /api/graphql (vulnerabilityDismiss)",
    input: {
      vulnerability_id: vulnerabilityId,
      reason: z.enum([
        "acceptable_risk",
        "false_positive",
        "used_in_tests",
        "mitigating_control",
        "not_applicable",
      ]),
      comment: z.string().max(50_000).optional(),
    },
    run: async (api, a) => {
      const id = toGid(a.vulnerability_id);
      const data = await gql(
        api,
        `mutation($id: VulnerabilityID!, $reason: VulnerabilityDismissalReason, $comment: String) { vulnerabilityDismiss(input: {id: $id, dismissalReason: $reason, comment: $comment}) { vulnerability { ${FIELDS} } errors } }`,
        { id, reason: a.reason.toUpperCase(), comment: a.comment },
        { ownerOf: id },
      );
      return result(payload(data, "vulnerabilityDismiss").vulnerability);
    },
  }),
];
