import {
  check,
  groupAt,
  groupPath,
  projectAt,
  projectPath,
  type RecordKind,
  seededId,
  text,
} from "./records.js";

/**
 * `/_sim/seed` key `hooks`: a project's or a group's webhook ({project or group, url, name?,
 * description?, events: {issues_events: true, ...}, enable_ssl_verification?, deliveries?:
 * [{trigger, response_status, response_body?, request_data?, execution_duration?}]}). Dumped
 * without deliveries, which the dump holds as `hook_events` rows (seed/registry.ts).
 */
export const hooks: RecordKind = {
  key: "hooks",
  seed(state, rows) {
    const now = state.clock.iso();
    for (const h of rows) {
      const owner =
        h.project !== undefined
          ? { project_id: projectAt(state, h, "hooks[]").id, group_id: null }
          : { project_id: null, group_id: groupAt(state, h, "hooks[]").id };
      check(typeof h.url === "string" && h.url, "hooks[].url is required");
      const id = seededId(state, "record2", h.id);
      state.hooks.push({
        id,
        ...owner,
        url: h.url,
        name: text(h.name, ""),
        description: text(h.description, ""),
        created_at: text(h.created_at, now),
        events: h.events && typeof h.events === "object" ? { ...h.events } : {},
        enable_ssl_verification: h.enable_ssl_verification !== false,
      });
      for (const e of Array.isArray(h.deliveries) ? h.deliveries : []) {
        const trigger = text(e.trigger, "push_hooks");
        const status = typeof e.response_status === "number" ? e.response_status : 200;
        state.hookEvents.push({
          id: seededId(state, "record2", undefined),
          hook_id: id,
          trigger,
          url: h.url,
          request_headers: { "Content-Type": "application/json", "X-Gitlab-Event": trigger },
          request_data:
            e.request_data && typeof e.request_data === "object" ? e.request_data : { object_kind: trigger },
          response_headers: { "Content-Type": "text/plain" },
          response_body: text(e.response_body, status < 300 ? "ok" : "error"),
          response_status: status,
          execution_duration: typeof e.execution_duration === "number" ? e.execution_duration : 0.1,
          created_at: now,
        });
      }
    }
  },
  dump: (state) =>
    // the secret token stays out of dumps, as it stays out of every answer
    state.hooks.map(({ project_id, group_id, token: _t, ...h }) => ({
      ...(project_id !== null ? { project: projectPath(state, project_id) } : {}),
      ...(group_id !== null ? { group: groupPath(state, group_id) } : {}),
      ...h,
    })),
  reset(state) {
    state.hooks = [];
  },
};
