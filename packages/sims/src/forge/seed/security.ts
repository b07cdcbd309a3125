import { check } from "./auth.js";
import { ownedRows, seededId, text, textOrNull } from "./records.js";

/**
 * `/_sim/seed` keys for a project's vulnerabilities ({project, title, description?, severity?,
 * report_type?, state?}) and a group's dependency proxy ({group, enabled?, blobs: [{file_name,
 * size}]}; one per group, a second replaces the first), dumped in those shapes.
 */
const VULNERABILITY_STATES = ["detected", "confirmed", "resolved", "dismissed"];

export const vulnerabilities = ownedRows({
  key: "vulnerabilities",
  field: "vulnerabilities",
  owner: "project",
  build(state, v, project_id, now) {
    check(typeof v.title === "string" && v.title, "vulnerabilities[].title is required");
    return {
      id: seededId(state, "record2", v.id),
      project_id,
      title: v.title,
      description: text(v.description, ""),
      severity: text(v.severity, "medium"),
      state: VULNERABILITY_STATES.includes(v.state) ? v.state : "detected",
      report_type: text(v.report_type, "sast"),
      dismissal_reason: textOrNull(v.dismissal_reason),
      detected_at: text(v.detected_at, now),
      updated_at: text(v.updated_at, now),
      notes: Array.isArray(v.notes) ? v.notes.map(String) : [],
    };
  },
});

export const dependencyProxy = ownedRows({
  key: "dependency_proxy",
  field: "dependencyProxy",
  owner: "group",
  build: (state, x, group_id, now) => ({
    group_id,
    enabled: x.enabled !== false,
    identity: textOrNull(x.identity),
    secret_set: x.secret_set === true,
    blobs: (Array.isArray(x.blobs) ? x.blobs : []).map((b: Record<string, unknown>) => ({
      id: seededId(state, "record2", b.id),
      file_name: text(b.file_name, "sha256:0"),
      size: typeof b.size === "number" ? b.size : 0,
      created_at: text(b.created_at, now),
    })),
  }),
  replaces: (stored, seeded) => stored.group_id === seeded.group_id,
});
