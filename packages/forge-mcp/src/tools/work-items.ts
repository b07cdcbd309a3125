import { z } from "zod";
import { ForgeHttpError } from "../forge/http.js";
import { cursorPagination, iid, projectId, tool } from "./define.js";
import { gql, inProject, payload, result } from "./gql.js";

/**
 * Work items through GitLab's GraphQL API (REST has none): listing, reading, creating, updating,
 * converting and moving them, their comments, the statuses their type allows and incident
 * timeline events. A change needs the item's global id, and labels and assignees travel as global
 * ids too, so a write reads them first (one query) and then runs the mutation: two forge calls.
 */

const TYPES = [
  "issue",
  "task",
  "incident",
  "test_case",
  "epic",
  "key_result",
  "objective",
  "requirement",
  "ticket",
] as const;
const TYPE_IDS: Record<(typeof TYPES)[number], number> = {
  issue: 1,
  incident: 2,
  test_case: 3,
  requirement: 4,
  task: 5,
  objective: 6,
  key_result: 7,
  epic: 8,
  ticket: 9,
};
const workItemType = z.enum(TYPES);
const typeGid = (t: (typeof TYPES)[number]) => `gid://gitlab/WorkItems::Type/${TYPE_IDS[t]}`;

export const WORK_ITEM_FIELDS =
  "id iid title state confidential createdAt updatedAt closedAt webUrl author { username } workItemType { name } " +
  "widgets { type ... on WorkItemWidgetDescription { description } ... on WorkItemWidgetAssignees { assignees { nodes { username } } } " +
  "... on WorkItemWidgetLabels { labels { nodes { title } } } ... on WorkItemWidgetHierarchy { parent { iid title } hasChildren } " +
  "... on WorkItemWidgetStatus { status { id name category } } }";

const NOTE_FIELDS = "id notes { nodes { id body internal system createdAt author { username } } }";

type Lookup = {
  fullPath: string;
  item?: string;
  labels: Map<string, string>;
  users: Map<string, string>;
};

/** One query: the project's path, the item's global id, the labels' and users' global ids by name. */
async function lookup(
  api: Parameters<typeof inProject>[0],
  project: string | number,
  opts: { iid?: number; labels?: string[]; users?: string[] },
): Promise<Lookup> {
  const parts = ["fullPath"];
  if (opts.iid !== undefined) parts.push("workItems(iid: $iid) { nodes { id } }");
  if (opts.labels?.length) parts.push("labels(first: 100) { nodes { id title } }");
  const p = await inProject(
    api,
    project,
    parts.join(" "),
    `${opts.iid !== undefined ? ", $iid: String" : ""}${opts.users?.length ? ", $users: [String!]" : ""}`,
    { iid: opts.iid !== undefined ? String(opts.iid) : undefined, users: opts.users },
    opts.users?.length ? "users(usernames: $users) { nodes { id username } }" : "",
  );
  const item = p.workItems?.nodes?.[0]?.id as string | undefined;
  if (opts.iid !== undefined && !item)
    throw new ForgeHttpError(404, `404 Work item ${opts.iid} Not Found`, p);
  const labels = new Map<string, string>(
    (p.labels?.nodes ?? []).map((l: { id: string; title: string }) => [l.title, l.id]),
  );
  for (const l of opts.labels ?? [])
    if (!labels.has(l)) throw new Error(`label ${JSON.stringify(l)} does not exist in the project`);
  const users = new Map<string, string>(
    (p._root?.users?.nodes ?? []).map((u: { id: string; username: string }) => [
      u.username.toLowerCase(),
      u.id,
    ]),
  );
  for (const u of opts.users ?? [])
    if (!users.has(u.toLowerCase())) throw new Error(`user ${JSON.stringify(u)} does not exist`);
  return { fullPath: p.fullPath, ...(item ? { item } : {}), labels, users };
}

const usernames = z.array(z.string().min(1)).max(100);
const labelNames = z.array(z.string().min(1)).max(100);

export const workItemTools = [
  tool({
    name: "list_work_items",
    description:
      "List a project's work items (issues, tasks, incidents, epics, ...) with their type, state, labels, assignees and status; cursor paging with first/after.",
    write: false,
    endpoint: "POST /api/graphql (Project.workItems)",
    input: {
      project_id: projectId,
      types: z.array(workItemType).optional(),
      state: z.enum(["opened", "closed"]).optional(),
      search: z.string().optional(),
      assignee_usernames: usernames.optional(),
      label_names: labelNames.optional(),
      ...cursorPagination,
    },
    run: async (api, a) => {
      const p = await inProject(
        api,
        a.project_id,
        `workItems(types: $types, state: $state, search: $search, assigneeUsernames: $assignees, labelName: $labels, first: $first, after: $after) { nodes { ${WORK_ITEM_FIELDS} } pageInfo { hasNextPage endCursor } }`,
        ", $types: [IssueType!], $state: IssuableState, $search: String, $assignees: [String!], $labels: [String!], $first: Int, $after: String",
        {
          types: a.types?.map((t) => t.toUpperCase()),
          state: a.state,
          search: a.search,
          assignees: a.assignee_usernames,
          labels: a.label_names,
          first: a.first,
          after: a.after,
        },
      );
      return result(p.workItems);
    },
  }),
  tool({
    name: "get_work_item",
    description: "Get one work item by iid: type, state, description, labels, assignees, parent and status.",
    write: false,
    endpoint: "POST /api/graphql (Project.workItems)",
    input: { project_id: projectId, iid },
    run: async (api, a) => {
      const p = await inProject(
        api,
        a.project_id,
        `workItems(iid: $iid) { nodes { ${WORK_ITEM_FIELDS} } }`,
        ", $iid: String",
        {
          iid: String(a.iid),
        },
      );
      const item = p.workItems?.nodes?.[0];
      if (!item) throw new ForgeHttpError(404, `404 Work item ${a.iid} Not Found`, p);
      return result(item);
    },
  }),
  tool({
    name: "create_work_item",
    description:
      "Create a work item of a type (issue by default) with description, labels, assignees and confidentiality.",
    write: true,
    endpoint: "POST /api/graphql (workItemCreate)",
    input: {
      project_id: projectId,
      title: z.string().min(1).max(255),
      type: workItemType.default("issue"),
      description: z.string().optional(),
      labels: labelNames.optional(),
      assignee_usernames: usernames.optional(),
      confidential: z.boolean().optional(),
    },
    run: async (api, a) => {
      const l = await lookup(api, a.project_id, { labels: a.labels, users: a.assignee_usernames });
      const input: Record<string, unknown> = {
        namespacePath: l.fullPath,
        title: a.title,
        workItemTypeId: typeGid(a.type),
        confidential: a.confidential,
      };
      if (a.description !== undefined) input.descriptionWidget = { description: a.description };
      if (a.labels?.length) input.labelsWidget = { labelIds: a.labels.map((x) => l.labels.get(x)) };
      if (a.assignee_usernames?.length)
        input.assigneesWidget = {
          assigneeIds: a.assignee_usernames.map((u) => l.users.get(u.toLowerCase())),
        };
      const data = await gql(
        api,
        `mutation($input: WorkItemCreateInput!) { workItemCreate(input: $input) { workItem { ${WORK_ITEM_FIELDS} } errors } }`,
        { input },
        { project: a.project_id },
      );
      return result(payload(data, "workItemCreate").workItem);
    },
  }),
  tool({
    name: "update_work_item",
    description:
      "Change a work item: title, description, labels added or removed, assignees (replaced), close or reopen, status (an id from list_work_item_statuses).",
    write: true,
    endpoint: "POST /api/graphql (workItemUpdate)",
    input: {
      project_id: projectId,
      iid,
      title: z.string().min(1).max(255).optional(),
      description: z.string().optional(),
      add_labels: labelNames.optional(),
      remove_labels: labelNames.optional(),
      assignee_usernames: usernames.optional(),
      state_event: z.enum(["close", "reopen"]).optional(),
      status: z
        .string()
        .optional()
        .describe("A status id, e.g. gid://gitlab/WorkItems::Statuses::SystemDefined::Status/2"),
    },
    run: async (api, a) => {
      const labels = [...(a.add_labels ?? []), ...(a.remove_labels ?? [])];
      const l = await lookup(api, a.project_id, { iid: a.iid, labels, users: a.assignee_usernames });
      const input: Record<string, unknown> = { id: l.item, title: a.title };
      if (a.state_event) input.stateEvent = a.state_event.toUpperCase();
      if (a.description !== undefined) input.descriptionWidget = { description: a.description };
      if (labels.length)
        input.labelsWidget = {
          addLabelIds: (a.add_labels ?? []).map((x) => l.labels.get(x)),
          removeLabelIds: (a.remove_labels ?? []).map((x) => l.labels.get(x)),
        };
      if (a.assignee_usernames)
        input.assigneesWidget = {
          assigneeIds: a.assignee_usernames.map((u) => l.users.get(u.toLowerCase())),
        };
      if (a.status !== undefined) input.statusWidget = { status: a.status };
      const data = await gql(
        api,
        `mutation($input: WorkItemUpdateInput!) { workItemUpdate(input: $input) { workItem { ${WORK_ITEM_FIELDS} } errors } }`,
        { input },
        { project: a.project_id },
      );
      return result(payload(data, "workItemUpdate").workItem);
    },
  }),
  tool({
    name: "convert_work_item_type",
    description: "Change a work item's type (an issue into a task, an incident, ...).",
    write: true,
    endpoint: "POST /api/graphql (workItemConvert)",
    input: { project_id: projectId, iid, new_type: workItemType },
    run: async (api, a) => {
      const l = await lookup(api, a.project_id, { iid: a.iid });
      const data = await gql(
        api,
        `mutation($id: WorkItemID!, $type: WorkItemsTypeID!) { workItemConvert(input: {id: $id, workItemTypeId: $type}) { workItem { ${WORK_ITEM_FIELDS} } errors } }`,
        { id: l.item, type: typeGid(a.new_type) },
        { project: a.project_id },
      );
      return result(payload(data, "workItemConvert").workItem);
    },
  }),
  tool({
    name: "move_work_item",
    description: "Move a work item to another project: a copy is made there and the original is closed.",
    write: true,
    endpoint: "POST /api/graphql (issueMove)",
    input: { project_id: projectId, iid, target_project_id: projectId },
    run: async (api, a) => {
      // GitLab's issueMove names both projects by path: numeric ids are read in one query, which
      // the allow-list checks for both projects before it is sent
      const numeric = (p: string | number) => typeof p === "number" || /^\d+$/.test(p);
      const ids = [a.project_id, a.target_project_id].filter(numeric).map((p) => `gid://gitlab/Project/${p}`);
      const found = new Map<string, string>();
      if (ids.length) {
        const d = await gql(
          api,
          "query($ids: [ID!]) { projects(ids: $ids) { nodes { id fullPath } } }",
          { ids },
          { project: a.project_id, target: a.target_project_id },
        );
        for (const n of d.projects?.nodes ?? []) found.set(n.id, n.fullPath);
      }
      const path = (p: string | number) => {
        if (!numeric(p)) return String(p);
        const full = found.get(`gid://gitlab/Project/${p}`);
        if (!full) throw new ForgeHttpError(404, "404 Project Not Found", undefined);
        return full;
      };
      const [from, to] = [path(a.project_id), path(a.target_project_id)];
      const data = await gql(
        api,
        "mutation($from: ID!, $iid: String!, $to: ID!) { issueMove(input: {projectPath: $from, iid: $iid, targetProjectPath: $to}) { issue { id iid title state webUrl } errors } }",
        { from, iid: String(a.iid), to },
        { project: a.project_id, target: a.target_project_id },
      );
      return result(payload(data, "issueMove").issue);
    },
  }),
  tool({
    name: "list_work_item_notes",
    description:
      "List the comment threads of a work item (each with its notes), oldest first; cursor paging.",
    write: false,
    endpoint: "POST /api/graphql (WorkItemWidgetNotes.discussions)",
    input: {
      project_id: projectId,
      iid,
      page_size: z.number().int().min(1).max(100).default(20),
      after: z.string().optional(),
    },
    run: async (api, a) => {
      const p = await inProject(
        api,
        a.project_id,
        `workItems(iid: $iid) { nodes { widgets { ... on WorkItemWidgetNotes { discussions(first: $first, after: $after) { nodes { ${NOTE_FIELDS} } pageInfo { hasNextPage endCursor } } } } } }`,
        ", $iid: String, $first: Int, $after: String",
        { iid: String(a.iid), first: a.page_size, after: a.after },
      );
      const item = p.workItems?.nodes?.[0];
      if (!item) throw new ForgeHttpError(404, `404 Work item ${a.iid} Not Found`, p);
      const notes = (item.widgets as Array<Record<string, unknown>>).find((w) => "discussions" in w);
      return result(notes?.discussions ?? { nodes: [] });
    },
  }),
  tool({
    name: "create_work_item_note",
    description:
      "Comment on a work item, or reply in a thread with discussion_id; internal notes are visible to members only.",
    write: true,
    endpoint: "POST /api/graphql (createNote)",
    input: {
      project_id: projectId,
      iid,
      body: z.string().min(1).max(1_000_000),
      internal: z.boolean().optional(),
      discussion_id: z.string().optional(),
    },
    run: async (api, a) => {
      const l = await lookup(api, a.project_id, { iid: a.iid });
      const data = await gql(
        api,
        "mutation($id: NoteableID!, $body: String!, $internal: Boolean, $discussion: DiscussionID) { createNote(input: {noteableId: $id, body: $body, internal: $internal, discussionId: $discussion}) { note { id body internal createdAt author { username } } errors } }",
        { id: l.item, body: a.body, internal: a.internal, discussion: a.discussion_id },
        { project: a.project_id },
      );
      return result(payload(data, "createNote").note);
    },
  }),
  tool({
    name: "list_work_item_statuses",
    description:
      "List the statuses a work item type allows in a project (ids for update_work_item's status).",
    write: false,
    endpoint: "POST /api/graphql (Project.workItemTypes)",
    input: { project_id: projectId, work_item_type: workItemType.default("issue") },
    run: async (api, a) => {
      const p = await inProject(
        api,
        a.project_id,
        "workItemTypes(name: $type) { nodes { name widgetDefinitions { type ... on WorkItemWidgetDefinitionStatus { allowedStatuses { id name category color iconName } } } } }",
        ", $type: IssueType",
        { type: a.work_item_type.toUpperCase() },
      );
      const t = p.workItemTypes?.nodes?.[0];
      const defs = (t?.widgetDefinitions ?? []) as Array<{ allowedStatuses?: unknown[] }>;
      return result({
        work_item_type: t?.name ?? a.work_item_type,
        statuses: defs.find((d) => d.allowedStatuses)?.allowedStatuses ?? [],
      });
    },
  }),
  tool({
    name: "list_custom_field_definitions",
    description:
      "List the custom fields (GitLab Premium, defined on the top-level group) a work item type has in a project, with their type and options.",
    write: false,
    endpoint: "POST /api/graphql (WorkItemWidgetDefinitionCustomFields)",
    input: { project_id: projectId, work_item_type: workItemType.default("issue") },
    run: async (api, a) => {
      const p = await inProject(
        api,
        a.project_id,
        "workItemTypes(name: $type) { nodes { name widgetDefinitions { type ... on WorkItemWidgetDefinitionCustomFields { customFieldValues { customField { id name fieldType selectOptions { id value } workItemTypes { name } } } } } } }",
        ", $type: IssueType",
        { type: a.work_item_type.toUpperCase() },
      );
      const t = p.workItemTypes?.nodes?.[0];
      const defs = (t?.widgetDefinitions ?? []) as Array<{
        customFieldValues?: Array<{ customField: unknown }>;
      }>;
      const values = defs.find((d) => d.customFieldValues)?.customFieldValues ?? [];
      return result({
        work_item_type: t?.name ?? a.work_item_type,
        custom_fields: values.map((v) => v.customField),
      });
    },
  }),
  tool({
    name: "get_timeline_events",
    description:
      "List the timeline events of an incident (what happened when, with tags such as Start time).",
    write: false,
    endpoint: "POST /api/graphql (Project.incidentManagementTimelineEvents)",
    input: { project_id: projectId, incident_iid: iid },
    run: async (api, a) => {
      const l = await lookup(api, a.project_id, { iid: a.incident_iid });
      const p = await inProject(
        api,
        a.project_id,
        "incidentManagementTimelineEvents(incidentId: $incident) { nodes { id note occurredAt createdAt action author { username } timelineEventTags { nodes { name } } } }",
        ", $incident: IssueID!",
        { incident: l.item!.replace("/WorkItem/", "/Issue/") },
      );
      return result(p.incidentManagementTimelineEvents);
    },
  }),
  tool({
    name: "create_timeline_event",
    description: "Add an event to an incident's timeline: a note, when it occurred, and tags.",
    write: true,
    endpoint: "POST /api/graphql (timelineEventCreate)",
    input: {
      project_id: projectId,
      incident_iid: iid,
      note: z.string().min(1).max(280),
      occurred_at: z.string().min(1).describe("ISO 8601, e.g. 2026-03-15T09:00:00Z"),
      tag_names: z
        .array(
          z.enum([
            "Start time",
            "End time",
            "Impact detected",
            "Response initiated",
            "Impact mitigated",
            "Cause identified",
          ]),
        )
        .optional(),
    },
    run: async (api, a) => {
      const l = await lookup(api, a.project_id, { iid: a.incident_iid });
      const data = await gql(
        api,
        "mutation($input: TimelineEventCreateInput!) { timelineEventCreate(input: $input) { timelineEvent { id note occurredAt timelineEventTags { nodes { name } } } errors } }",
        {
          input: {
            incidentId: l.item!.replace("/WorkItem/", "/Issue/"),
            note: a.note,
            occurredAt: a.occurred_at,
            timelineEventTagNames: a.tag_names ?? [],
          },
        },
        { project: a.project_id },
      );
      return result(payload(data, "timelineEventCreate").timelineEvent);
    },
  }),
];
