import { check, ownedRows, seededId, text, textOrNull } from "./records.js";

/**
 * `/_sim/seed` keys for planning records, by project or group path: `labels` ({project, name,
 * color?, description?, priority?}; a second label of a name replaces the first), `milestones`
 * ({project, title, description?, state?, start_date?, due_date?}), `iterations` ({group, title,
 * start_date, due_date}) and `custom_fields` ({group (top level), name, field_type, options,
 * work_item_types}). Each is dumped in that shape with its ids and times, which a seed keeps.
 */
export const labels = ownedRows({
  key: "labels",
  field: "labels",
  owner: "project",
  required: ["name"],
  series: "record",
  build(_state, l, project_id) {
    return {
      project_id,
      name: l.name,
      color: text(l.color, "#6699cc"),
      description: textOrNull(l.description),
      priority: typeof l.priority === "number" ? l.priority : null,
    };
  },
  replaces: (stored, seeded) => stored.project_id === seeded.project_id && stored.name === seeded.name,
});

export const milestones = ownedRows({
  key: "milestones",
  field: "milestones",
  owner: "project",
  required: ["title"],
  series: "record",
  build(state, m, project_id, now) {
    return {
      iid:
        typeof m.iid === "number"
          ? m.iid
          : state.milestones.filter((x) => x.project_id === project_id).length + 1,
      project_id,
      title: m.title,
      description: text(m.description, ""),
      state: m.state === "closed" ? ("closed" as const) : ("active" as const),
      start_date: textOrNull(m.start_date),
      due_date: textOrNull(m.due_date),
      created_at: text(m.created_at, now),
      updated_at: text(m.updated_at, now),
    };
  },
});

export const iterations = ownedRows({
  key: "iterations",
  field: "iterations",
  owner: "group",
  series: "record2",
  build(state, i, group_id, now) {
    check(
      typeof i.start_date === "string" && typeof i.due_date === "string",
      "iterations[].start_date and due_date are required",
    );
    return {
      iid:
        typeof i.iid === "number"
          ? i.iid
          : state.iterations.filter((x) => x.group_id === group_id).length + 1,
      group_id,
      title: textOrNull(i.title),
      description: textOrNull(i.description),
      start_date: i.start_date,
      due_date: i.due_date,
      created_at: text(i.created_at, now),
      updated_at: text(i.updated_at, now),
    };
  },
});

const FIELD_TYPES = ["SINGLE_SELECT", "MULTI_SELECT", "TEXT", "NUMBER"];

export const customFields = ownedRows({
  key: "custom_fields",
  field: "customFields",
  owner: "group",
  series: "record2",
  build(state, f, group_id) {
    check(
      state.groups.find((g) => g.id === group_id)?.parent_id === null,
      "custom_fields[].group must be a top-level group",
    );
    check(typeof f.name === "string" && f.name, "custom_fields[].name is required");
    const type = String(f.field_type ?? "TEXT").toUpperCase();
    check(FIELD_TYPES.includes(type), "custom_fields[].field_type is invalid");
    return {
      group_id,
      name: f.name,
      field_type: type as "TEXT",
      // an option is its value, or as dumped {id, value}
      options: (Array.isArray(f.options) ? f.options : []).map((o: unknown) => {
        const dumped = typeof o === "object" && o !== null ? (o as { id?: unknown; value?: unknown }) : null;
        return { id: seededId(state, "record2", dumped?.id), value: String(dumped ? dumped.value : o) };
      }),
      work_item_types: Array.isArray(f.work_item_types) ? f.work_item_types.map(String) : ["issue"],
    };
  },
});
