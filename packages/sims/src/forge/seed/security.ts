import { check } from "./auth.js";
import {
  groupAt,
  groupPath,
  projectAt,
  projectPath,
  type RecordKind,
  seededId,
  text,
  textOrNull,
} from "./records.js";

/**
 * `/_sim/seed` keys for a project's vulnerabilities ({project, title, description?, severity?,
 * report_type?, state?}) and a group's dependency proxy ({group, enabled?, blobs: [{file_name,
 * size}]}; one per group, a second replaces the first), dumped in those shapes.
 */
const VULNERABILITY_STATES = ["detected", "confirmed", "resolved", "dismissed"];

export const vulnerabilities: RecordKind = {
  key: "vulnerabilities",
  seed(state, rows) {
    const now = state.clock.iso();
    for (const v of rows) {
      const p = projectAt(state, v, "vulnerabilities[]");
      check(typeof v.title === "string" && v.title, "vulnerabilities[].title is required");
      state.vulnerabilities.push({
        id: seededId(state, "record2", v.id),
        project_id: p.id,
        title: v.title,
        description: text(v.description, ""),
        severity: text(v.severity, "medium"),
        state: VULNERABILITY_STATES.includes(v.state) ? v.state : "detected",
        report_type: text(v.report_type, "sast"),
        dismissal_reason: textOrNull(v.dismissal_reason),
        detected_at: text(v.detected_at, now),
        updated_at: text(v.updated_at, now),
        notes: Array.isArray(v.notes) ? v.notes.map(String) : [],
      });
    }
  },
  dump: (state) =>
    state.vulnerabilities.map(({ project_id, ...v }) => ({ project: projectPath(state, project_id), ...v })),
  reset(state) {
    state.vulnerabilities = [];
  },
};

export const dependencyProxy: RecordKind = {
  key: "dependency_proxy",
  seed(state, rows) {
    const now = state.clock.iso();
    for (const x of rows) {
      const g = groupAt(state, x, "dependency_proxy[]");
      state.dependencyProxy = state.dependencyProxy.filter((r) => r.group_id !== g.id);
      state.dependencyProxy.push({
        group_id: g.id,
        enabled: x.enabled !== false,
        identity: textOrNull(x.identity),
        secret_set: x.secret_set === true,
        blobs: (Array.isArray(x.blobs) ? x.blobs : []).map((b: Record<string, unknown>) => ({
          id: seededId(state, "record2", b.id),
          file_name: text(b.file_name, "sha256:0"),
          size: typeof b.size === "number" ? b.size : 0,
          created_at: text(b.created_at, now),
        })),
      });
    }
  },
  dump: (state) =>
    state.dependencyProxy.map(({ group_id, ...d }) => ({ group: groupPath(state, group_id), ...d })),
  reset(state) {
    state.dependencyProxy = [];
  },
};
