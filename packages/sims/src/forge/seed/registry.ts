import type { ProtectedBranchRow } from "../model/state.js";
import { identities, redacted } from "./auth.js";
import { dependencyProxy } from "./dependency-proxy.js";
import { hooks } from "./hooks.js";
import { jobArtifacts } from "./job-artifacts.js";
import { customFields, iterations, labels, milestones } from "./plan.js";
import { type RecordKind, storedPairs, storedRows } from "./records.js";
import { releaseLinks, releases, tagSignatures } from "./releases.js";
import { vulnerabilities } from "./vulnerabilities.js";
import { groupWikis, projectWikis } from "./wikis.js";
import { work } from "./work.js";

/**
 * Every kind of record the forge holds, once, in seeding order (a kind refers only to kinds
 * above it). `GET /_sim/state` dumps each under its key and `POST /_sim/seed` reads the same
 * keys back, so a dump seeded with `replace: true` into a fresh simulator rebuilds the REST world.
 * Kinds only the API makes are dumped as stored, their references to other records by id (which a
 * dump keeps); the kinds a person seeds by hand name projects, groups and users by path.
 */
export const RECORDS: readonly RecordKind[] = [
  ...identities,
  ...work,
  labels,
  milestones,
  storedRows("group_milestones", "groupMilestones", "record"),
  storedPairs("issue_milestones", "issueMilestones", "issue_id", "milestone_id"),
  storedPairs("mr_milestones", "mrMilestones", "merge_request_id", "milestone_id"),
  iterations,
  customFields,
  storedPairs("work_item_types", "workItemTypes", "issue_id", "type"),
  storedPairs("work_item_status", "workItemStatus", "issue_id", "status"),
  storedRows("issue_links", "links", "record"),
  {
    key: "todos_done",
    seed(state, rows) {
      for (const t of rows)
        if (typeof t.id === "number" && !state.todosDone.includes(t.id)) state.todosDone.push(t.id);
    },
    dump: (state) => state.todosDone.map((id) => ({ id })),
    reset(state) {
      state.todosDone = [];
    },
  },
  storedRows("award_emoji", "awards", "record"),
  storedRows("timeline_events", "timeline", "record2"),
  releases,
  releaseLinks,
  storedRows("evidence", "evidence", "record2"),
  tagSignatures,
  projectWikis,
  groupWikis,
  jobArtifacts,
  storedPairs("forks", "forks", "project_id", "forked_from_id"),
  {
    key: "protected_branches",
    seed(state, rows) {
      for (const { project_id, ...row } of rows) {
        state.seq.record = Math.max(state.seq.record, Number(row.id) || 0);
        state.protectedBranches[project_id] = [
          ...(state.protectedBranches[project_id] ?? []),
          structuredClone(row) as ProtectedBranchRow,
        ];
      }
    },
    dump: (state) =>
      Object.entries(state.protectedBranches).flatMap(([id, rows]) =>
        rows.map((row) => ({ project_id: Number(id), ...row })),
      ),
    reset(state) {
      state.protectedBranches = {};
    },
  },
  storedRows("commit_statuses", "statuses", "record"),
  storedRows("variables", "variables"),
  storedRows("environments", "environments", "record"),
  storedRows("deployments", "deployments", "record"),
  storedRows("pipeline_schedules", "pipelineSchedules", "record2"),
  {
    // a trigger token is dumped redacted, as access tokens are: the seeded row never authenticates
    ...storedRows("pipeline_triggers", "triggers", "record2"),
    dump: (state) => state.triggers.map((t) => ({ ...t, token: redacted(t.token) })),
  },
  hooks,
  storedRows("hook_events", "hookEvents", "record2"),
  storedRows("uploads", "uploads", "record2"),
  vulnerabilities,
  dependencyProxy,
];
