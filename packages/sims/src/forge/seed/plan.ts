import type { ForgeState } from "../model/state.js";
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
 * `/_sim/seed` keys for planning records, by project or group path: `labels` ({project, name,
 * color?, description?, priority?}; a second label of a name replaces the first), `milestones`
 * ({project, title, description?, state?, start_date?, due_date?}), `iterations` ({group, title,
 * start_date, due_date}) and `custom_fields` ({group (top level), name, field_type, options,
 * work_item_types}). Each is dumped in that shape with its ids and times, which a seed keeps.
 */
export const labels: RecordKind = {
  key: "labels",
  seed(state, rows) {
    for (const l of rows) {
      const p = projectAt(state, l, "labels[]");
      check(typeof l.name === "string" && l.name, "labels[].name is required");
      state.labels = state.labels.filter((x) => !(x.project_id === p.id && x.name === l.name));
      state.labels.push({
        id: seededId(state, "record", l.id),
        project_id: p.id,
        name: l.name,
        color: text(l.color, "#6699cc"),
        description: textOrNull(l.description),
        priority: typeof l.priority === "number" ? l.priority : null,
      });
    }
  },
  dump: (state) =>
    state.labels.map(({ project_id, ...l }) => ({ project: projectPath(state, project_id), ...l })),
  reset(state) {
    state.labels = [];
  },
};

export const milestones: RecordKind = {
  key: "milestones",
  seed(state, rows) {
    const now = state.clock.iso();
    for (const m of rows) {
      const p = projectAt(state, m, "milestones[]");
      check(typeof m.title === "string" && m.title, "milestones[].title is required");
      state.milestones.push({
        id: seededId(state, "record", m.id),
        iid:
          typeof m.iid === "number"
            ? m.iid
            : state.milestones.filter((x) => x.project_id === p.id).length + 1,
        project_id: p.id,
        title: m.title,
        description: text(m.description, ""),
        state: m.state === "closed" ? "closed" : "active",
        start_date: textOrNull(m.start_date),
        due_date: textOrNull(m.due_date),
        created_at: text(m.created_at, now),
        updated_at: text(m.updated_at, now),
      });
    }
  },
  dump: (state) =>
    state.milestones.map(({ project_id, ...m }) => ({ project: projectPath(state, project_id), ...m })),
  reset(state) {
    state.milestones = [];
  },
};

export const iterations: RecordKind = {
  key: "iterations",
  seed(state, rows) {
    const now = state.clock.iso();
    for (const i of rows) {
      const g = groupAt(state, i, "iterations[]");
      check(
        typeof i.start_date === "string" && typeof i.due_date === "string",
        "iterations[].start_date and due_date are required",
      );
      state.iterations.push({
        id: seededId(state, "record2", i.id),
        iid:
          typeof i.iid === "number" ? i.iid : state.iterations.filter((x) => x.group_id === g.id).length + 1,
        group_id: g.id,
        title: textOrNull(i.title),
        description: textOrNull(i.description),
        start_date: i.start_date,
        due_date: i.due_date,
        created_at: text(i.created_at, now),
        updated_at: text(i.updated_at, now),
      });
    }
  },
  dump: (state) =>
    state.iterations.map(({ group_id, ...i }) => ({ group: groupPath(state, group_id), ...i })),
  reset(state) {
    state.iterations = [];
  },
};

const FIELD_TYPES = ["SINGLE_SELECT", "MULTI_SELECT", "TEXT", "NUMBER"];

export const customFields: RecordKind = {
  key: "custom_fields",
  seed(state: ForgeState, rows) {
    for (const f of rows) {
      const g = groupAt(state, f, "custom_fields[]");
      check(g.parent_id === null, "custom_fields[].group must be a top-level group");
      check(typeof f.name === "string" && f.name, "custom_fields[].name is required");
      const type = String(f.field_type ?? "TEXT").toUpperCase();
      check(FIELD_TYPES.includes(type), "custom_fields[].field_type is invalid");
      const id = seededId(state, "record2", f.id);
      state.customFields.push({
        id,
        group_id: g.id,
        name: f.name,
        field_type: type as "TEXT",
        // an option is its value, or as dumped {id, value}
        options: (Array.isArray(f.options) ? f.options : []).map((o: unknown) => {
          const dumped =
            typeof o === "object" && o !== null ? (o as { id?: unknown; value?: unknown }) : null;
          return {
            id: seededId(state, "record2", dumped?.id),
            value: String(dumped ? dumped.value : o),
          };
        }),
        work_item_types: Array.isArray(f.work_item_types) ? f.work_item_types.map(String) : ["issue"],
      });
    }
  },
  dump: (state) =>
    state.customFields.map(({ group_id, ...f }) => ({ group: groupPath(state, group_id), ...f })),
  reset(state) {
    state.customFields = [];
  },
};
