import { ownedRows, text, textOrNull } from "./records.js";

/**
 * `/_sim/seed` key `vulnerabilities`: a project's ({project, title, description?, severity?,
 * report_type?, state?}), dumped in that shape with ids and times.
 */
const VULNERABILITY_STATES = ["detected", "confirmed", "resolved", "dismissed"];

export const vulnerabilities = ownedRows({
  key: "vulnerabilities",
  field: "vulnerabilities",
  owner: "project",
  required: ["title"],
  series: "record2",
  build(_state, v, project_id, now) {
    return {
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
