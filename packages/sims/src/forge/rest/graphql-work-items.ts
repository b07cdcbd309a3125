import {
  canReadProject,
  canSeeGroup,
  findGroup,
  findProject,
  groupAccessLevel,
  groupById,
  groupChain,
  groupFullPath,
  projectAccessLevel,
  projectFullPath,
} from "../model/access.js";
import { addNote } from "../model/notes.js";
import {
  ACCESS,
  type ForgeState,
  type ForgeUser,
  type Group,
  type Issue,
  nextId,
  type Project,
  userByName,
} from "../model/state.js";
import { type Args, connection, GqlError, type Obj, type Value } from "./graphql-kit.js";
import { canSeeIssue, createIssue } from "./issues.js";

/**
 * The GraphQL fields behind gitlab-mcp's work item, vulnerability, dependency proxy and user
 * tools, in GitLab's schema shapes: `users(usernames:)`, `projects(ids:)`, `vulnerability(id:)`,
 * `Project.workItems` (work items are the project's issues, each with its type), `Project.workItemTypes`
 * (with the status widget's allowed statuses), `Project.vulnerabilities`,
 * `Project.incidentManagementTimelineEvents`, the group's dependency proxy fields, and the
 * mutations `workItemCreate`, `workItemUpdate`, `workItemConvert`, `issueMove`,
 * `timelineEventCreate`, `vulnerabilityConfirm`, `vulnerabilityDismiss` and
 * `updateDependencyProxySettings`.
 */

export interface GqlEnv {
  s: ForgeState;
  me: ForgeUser | null;
  origin: string;
  gid(type: string, id: number): string;
  userObj(u: ForgeUser): Obj;
  projectObj(p: Project): Obj | null;
}

const DENIED =
  "The resource that you are attempting to access does not exist or you don't have permission to perform this action";

/** GitLab's work item types and their type ids (`gid://gitlab/WorkItems::Type/<n>`). */
export const WORK_ITEM_TYPES: Record<string, { id: number; name: string }> = {
  issue: { id: 1, name: "Issue" },
  incident: { id: 2, name: "Incident" },
  test_case: { id: 3, name: "Test Case" },
  requirement: { id: 4, name: "Requirement" },
  task: { id: 5, name: "Task" },
  objective: { id: 6, name: "Objective" },
  key_result: { id: 7, name: "Key Result" },
  epic: { id: 8, name: "Epic" },
  ticket: { id: 9, name: "Ticket" },
};
const typeByGid = (gid: unknown) =>
  Object.entries(WORK_ITEM_TYPES).find(([, t]) => `gid://gitlab/WorkItems::Type/${t.id}` === gid)?.[0];

/** The system-defined statuses of the status widget (issues and tasks). */
const STATUSES = [
  { id: 1, name: "To do", iconName: "status-waiting", color: "#737278", category: "to_do" },
  { id: 2, name: "In progress", iconName: "status-running", color: "#1f75cb", category: "in_progress" },
  { id: 3, name: "Done", iconName: "status-success", color: "#108548", category: "done" },
  { id: 4, name: "Won't do", iconName: "status-cancelled", color: "#DD2B0E", category: "canceled" },
  { id: 5, name: "Duplicate", iconName: "status-cancelled", color: "#DD2B0E", category: "canceled" },
];
const statusGid = (id: number) => `gid://gitlab/WorkItems::Statuses::SystemDefined::Status/${id}`;
const statusObj = (st: (typeof STATUSES)[number]): Obj => ({
  __typename: "WorkItemStatus",
  ...st,
  id: statusGid(st.id),
  position: STATUSES.indexOf(st),
});
const HAS_STATUS = new Set(["issue", "task"]);

/** GitLab's default work item hierarchy: which types may be children and parents of each. */
const HIERARCHY: Record<string, { children: string[]; parents: string[] }> = {
  epic: { children: ["epic", "issue"], parents: ["epic"] },
  issue: { children: ["task"], parents: ["epic"] },
  incident: { children: ["task"], parents: [] },
  ticket: { children: ["task"], parents: ["epic"] },
  task: { children: [], parents: ["issue", "incident", "ticket"] },
  objective: { children: ["objective", "key_result"], parents: ["objective"] },
  key_result: { children: [], parents: ["objective"] },
};
const typeRef = (t: { id: number; name: string }): Obj => ({
  __typename: "WorkItemType",
  id: `gid://gitlab/WorkItems::Type/${t.id}`,
  name: t.name,
});
const typeConn = (kinds: string[]) =>
  connection(kinds, {}, (k) => typeRef(WORK_ITEM_TYPES[k]!), "WorkItemType");

const TIMELINE_TAGS = [
  "Start time",
  "End time",
  "Impact detected",
  "Response initiated",
  "Impact mitigated",
  "Cause identified",
];

const numericId = (gid: unknown, type: string): number | undefined => {
  const m = new RegExp(`^gid://gitlab/${type.replace(/[:]/g, "\\$&")}/(\\d+)$`).exec(String(gid ?? ""));
  return m ? Number(m[1]) : undefined;
};

export function workItemGraphql(env: GqlEnv) {
  const { s, me, origin, gid, userObj } = env;
  const m = () => s;
  const typeOf = (i: Issue) => m().workItemTypes[i.id] ?? "issue";
  const projectOf = (i: Issue) => s.projects.find((p) => p.id === i.project_id)!;
  const labelRow = (p: Project, title: string) =>
    s.labels.find((l) => l.project_id === p.id && l.name === title);

  /** The custom fields of a group's root group (a project's: its namespace's) that apply to a work item type. */
  const customFieldsOf = (at: Project | Group, kind: string) => {
    const g = "namespace" in at ? (at.namespace.kind === "group" ? groupById(s, at.namespace.id) : null) : at;
    if (!g) return [];
    const chain = groupChain(s, g);
    const root = chain.find((x) => x.parent_id === null) ?? chain[0];
    return (m().customFields ?? []).filter(
      (f) => f.group_id === root?.id && f.work_item_types.includes(kind),
    );
  };

  const discussionsConn = (i: Issue, a: Args) => {
    const rows = i.discussions.filter((d) => !d.notes[0]?.system);
    const sorted = a.sort === "CREATED_DESC" ? [...rows].reverse() : rows;
    return connection(
      sorted,
      a,
      (d) => ({
        __typename: "Discussion",
        id: `gid://gitlab/Discussion/${d.id}`,
        // an issue's threads are resolvable only when a note of theirs is (GitLab: on merge requests)
        resolvable: d.notes.some((n) => n.resolvable),
        resolved: d.notes.some((n) => n.resolvable) && d.notes.every((n) => !n.resolvable || n.resolved),
        notes: connection(
          d.notes,
          {},
          (n) => {
            const author = s.users.find((u) => u.id === n.author_id);
            return {
              __typename: "Note",
              id: gid("Note", n.id),
              body: n.body,
              internal: false,
              system: n.system,
              createdAt: n.created_at,
              lastEditedAt: n.updated_at === n.created_at ? null : n.updated_at,
              author: author ? userObj(author) : null,
            };
          },
          "Note",
        ),
      }),
      "Discussion",
    );
  };

  const workItemObj = (i: Issue): Obj => {
    const p = projectOf(i);
    const full = projectFullPath(s, p);
    const kind = typeOf(i);
    const type = WORK_ITEM_TYPES[kind]!;
    const status = STATUSES.find(
      (x) => x.id === Number(m().workItemStatus[i.id] ?? (i.state === "closed" ? 3 : 1)),
    );
    const widgets: Obj[] = [
      { __typename: "WorkItemWidgetDescription", type: "DESCRIPTION", description: i.description },
      {
        __typename: "WorkItemWidgetAssignees",
        type: "ASSIGNEES",
        assignees: connection(
          i.assignee_ids.map((id) => s.users.find((u) => u.id === id)).filter((u) => u !== undefined),
          {},
          userObj,
          "UserCore",
        ),
      },
      {
        __typename: "WorkItemWidgetLabels",
        type: "LABELS",
        labels: connection(
          i.labels,
          {},
          (t) => {
            const l = labelRow(p, t);
            return {
              __typename: "Label",
              id: gid("ProjectLabel", l?.id ?? 0),
              title: t,
              color: l?.color ?? "#6699cc",
            };
          },
          "Label",
        ),
      },
      {
        __typename: "WorkItemWidgetHierarchy",
        type: "HIERARCHY",
        parent: null,
        hasParent: false,
        hasChildren: false,
        children: connection([], {}, () => ({ __typename: "WorkItem" }), "WorkItem"),
      },
      {
        __typename: "WorkItemWidgetNotes",
        type: "NOTES",
        discussionLocked: false, // the REST answer's discussion_locked is null: never locked here
        discussions: (a: Args) => discussionsConn(i, a),
      },
    ];
    if (HAS_STATUS.has(kind) && status)
      widgets.push({ __typename: "WorkItemWidgetStatus", type: "STATUS", status: statusObj(status) });
    return {
      __typename: "WorkItem",
      id: gid("WorkItem", i.id),
      iid: String(i.iid),
      title: i.title,
      description: i.description,
      state: i.state === "opened" ? "OPEN" : "CLOSED",
      confidential: i.confidential,
      createdAt: i.created_at,
      updatedAt: i.updated_at,
      closedAt: i.closed_at,
      webUrl: `${origin}/${full}/-/work_items/${i.iid}`,
      author: (() => {
        const u = s.users.find((x) => x.id === i.author_id);
        return u ? userObj(u) : null;
      })(),
      workItemType: {
        __typename: "WorkItemType",
        id: `gid://gitlab/WorkItems::Type/${type.id}`,
        name: type.name,
      },
      namespace: { __typename: "Namespace", id: gid("Namespaces::ProjectNamespace", p.id), fullPath: full },
      widgets,
    };
  };

  /** A work item by global id that the caller may see (and, for `min`, change). */
  const workItem = (id: unknown, min = 0): Issue => {
    const n = numericId(id, "WorkItem");
    const i = n === undefined ? undefined : s.issues.find((x) => x.id === n);
    const p = i && projectOf(i);
    if (!i || !p || !canReadProject(s, me, p) || !canSeeIssue(s, i, me)) throw new GqlError(DENIED);
    if (min > 0 && (!me || projectAccessLevel(s, me, p) < min)) throw new GqlError(DENIED);
    return i;
  };

  const vulnerabilityObj = (
    v: (typeof m extends () => infer X ? X : never)["vulnerabilities"][number],
  ): Obj => {
    const p = s.projects.find((x) => x.id === v.project_id)!;
    return {
      __typename: "Vulnerability",
      id: gid("Vulnerability", v.id),
      title: v.title,
      description: v.description,
      severity: v.severity.toUpperCase(),
      state: v.state.toUpperCase(),
      reportType: v.report_type.toUpperCase(),
      dismissalReason: v.dismissal_reason ? v.dismissal_reason.toUpperCase() : null,
      detectedAt: v.detected_at,
      updatedAt: v.updated_at,
      webUrl: `${origin}/${projectFullPath(s, p)}/-/security/vulnerabilities/${v.id}`,
      project: env.projectObj(p),
    };
  };
  const vulnerability = (id: unknown, min = 0) => {
    const n = numericId(id, "Vulnerability");
    const v = n === undefined ? undefined : m().vulnerabilities.find((x) => x.id === n);
    const p = v && s.projects.find((x) => x.id === v.project_id);
    // the vulnerability report needs developer access
    if (!v || !p || !me || projectAccessLevel(s, me, p) < Math.max(ACCESS.developer, min))
      throw new GqlError(DENIED);
    return v;
  };

  const proxyRow = (g: Group) => {
    let row = m().dependencyProxy.find((d) => d.group_id === g.id);
    if (!row) {
      row = { group_id: g.id, enabled: true, identity: null, secret_set: false, blobs: [] };
      m().dependencyProxy.push(row);
    }
    return row;
  };

  /** The work item types a project or group offers, with their widgets' definitions. */
  const workItemTypes = (at: Project | Group, a: Args) =>
    connection(
      Object.entries(WORK_ITEM_TYPES).filter(([k]) => !a.name || String(a.name).toLowerCase() === k),
      a,
      ([k, t]) => ({
        __typename: "WorkItemType",
        id: `gid://gitlab/WorkItems::Type/${t.id}`,
        name: t.name,
        // what workItemConvert takes it to: any project-level type but its own (epics live in groups)
        supportedConversionTypes: Object.entries(WORK_ITEM_TYPES)
          .filter(([o]) => o !== k && o !== "epic" && k !== "epic")
          .map(([, o]) => typeRef(o)),
        widgetDefinitions: [
          {
            __typename: "WorkItemWidgetDefinitionHierarchy",
            type: "HIERARCHY",
            allowedChildTypes: typeConn(HIERARCHY[k]?.children ?? []),
            allowedParentTypes: typeConn(HIERARCHY[k]?.parents ?? []),
          },
          ...(HAS_STATUS.has(k)
            ? [
                {
                  __typename: "WorkItemWidgetDefinitionStatus",
                  type: "STATUS",
                  allowedStatuses: STATUSES.map(statusObj),
                },
              ]
            : []),
          {
            __typename: "WorkItemWidgetDefinitionCustomFields",
            type: "CUSTOM_FIELDS",
            customFieldValues: customFieldsOf(at, k).map((f) => ({
              __typename: "WorkItemCustomFieldValue",
              customField: {
                __typename: "CustomField",
                id: gid("Issuables::CustomField", f.id),
                name: f.name,
                fieldType: f.field_type,
                selectOptions: f.options.map((o) => ({
                  __typename: "CustomFieldSelectOption",
                  id: gid("Issuables::CustomFieldSelectOption", o.id),
                  value: o.value,
                })),
                workItemTypes: f.work_item_types.map((t) => ({
                  __typename: "WorkItemType",
                  id: `gid://gitlab/WorkItems::Type/${WORK_ITEM_TYPES[t]?.id ?? 0}`,
                  name: WORK_ITEM_TYPES[t]?.name ?? t,
                })),
              },
            })),
          },
        ],
      }),
      "WorkItemType",
    );

  const root = {
    // a project's or group's namespace: where GitLab 17+ keeps work items (gitlab-mcp 2.1.64 reads them here)
    namespace: (a: Args) => {
      const path = typeof a.fullPath === "string" ? a.fullPath : "";
      const p = findProject(s, path);
      if (p && /\D/.test(path)) {
        if (!canReadProject(s, me, p)) return null;
        const fields = project(p);
        const items = fields.workItems as (a: Args) => { nodes: Obj[] };
        return {
          __typename: "Namespace",
          id: gid("Namespaces::ProjectNamespace", p.id),
          fullPath: projectFullPath(s, p),
          name: p.name,
          workItems: items,
          workItem: (a2: Args) => (a2.iid === undefined ? null : (items({ iid: a2.iid }).nodes[0] ?? null)),
          workItemTypes: fields.workItemTypes,
        } satisfies Obj;
      }
      const g = findGroup(s, path);
      if (!g || !/\D/.test(path) || !canSeeGroup(s, me, g)) return null;
      // no group-level work items (epics) in this simulator; GitLab names a group's namespace Namespace too
      return {
        __typename: "Namespace",
        id: gid("Group", g.id),
        fullPath: groupFullPath(s, g),
        name: g.name,
        workItems: (a2: Args) => connection([], a2, workItemObj, "WorkItem"),
        workItem: () => null,
        workItemTypes: (a2: Args) => workItemTypes(g, a2),
      } satisfies Obj;
    },
    users: (a: Args) => {
      const names = Array.isArray(a.usernames) ? a.usernames.map((x) => String(x).toLowerCase()) : null;
      const rows = s.users.filter((u) => !names || names.includes(u.username.toLowerCase()));
      return connection(rows, a, userObj, "UserCore");
    },
    projects: (a: Args) => {
      const ids = Array.isArray(a.ids) ? a.ids.map((x) => numericId(x, "Project")) : null;
      const rows = s.projects.filter((p) => (!ids || ids.includes(p.id)) && canReadProject(s, me, p));
      return connection(rows, a, (p) => env.projectObj(p)!, "Project");
    },
    vulnerability: (a: Args) => {
      try {
        return vulnerabilityObj(vulnerability(a.id));
      } catch {
        return null;
      }
    },
  };

  const project = (p: Project): Record<string, Value> => ({
    workItems: (a: Args) => {
      const types = Array.isArray(a.types) ? a.types.map((t) => String(t).toLowerCase()) : null;
      const iids =
        a.iid !== undefined && a.iid !== null
          ? [String(a.iid)]
          : Array.isArray(a.iids)
            ? a.iids.map(String)
            : null;
      const term = typeof a.search === "string" ? a.search.toLowerCase() : null;
      const state = a.state === "opened" ? "opened" : a.state === "closed" ? "closed" : null;
      const labels = Array.isArray(a.labelName) ? a.labelName.map(String) : null;
      const assignees = Array.isArray(a.assigneeUsernames) ? a.assigneeUsernames.map(String) : null;
      const rows = s.issues
        .filter((i) => i.project_id === p.id && canSeeIssue(s, i, me))
        .filter((i) => !iids || iids.includes(String(i.iid)))
        .filter((i) => !types || types.includes(typeOf(i)))
        .filter((i) => !state || i.state === state)
        .filter((i) => !term || `${i.title}\n${i.description}`.toLowerCase().includes(term))
        .filter((i) => !labels || labels.every((l) => i.labels.includes(l)))
        .filter(
          (i) => !assignees || assignees.every((u) => i.assignee_ids.includes(userByName(s, u)?.id ?? -1)),
        )
        .sort((x, y) => y.iid - x.iid);
      const after = typeof a.after === "string" ? Number(a.after) : 0;
      const page = connection(rows.slice(after), a, workItemObj, "WorkItem") as Obj & { pageInfo: Obj };
      const shown = Math.min(rows.length - after, typeof a.first === "number" ? Math.min(a.first, 100) : 100);
      page.pageInfo.endCursor = shown > 0 ? String(after + shown) : null;
      return page;
    },
    workItemTypes: (a: Args) => workItemTypes(p, a),
    labels: (a: Args) =>
      connection(
        s.labels.filter((l) => l.project_id === p.id && (!a.title || l.name === a.title)),
        a,
        (l) => ({ __typename: "Label", id: gid("ProjectLabel", l.id), title: l.name, color: l.color }),
        "Label",
      ),
    vulnerabilities: (a: Args) => {
      if (!me || projectAccessLevel(s, me, p) < ACCESS.developer)
        return connection([], a, vulnerabilityObj, "Vulnerability");
      const want = (k: string) =>
        Array.isArray(a[k]) ? (a[k] as unknown[]).map((x) => String(x).toLowerCase()) : null;
      const [state, severity, reportType] = [want("state"), want("severity"), want("reportType")];
      const rows = m()
        .vulnerabilities.filter((v) => v.project_id === p.id)
        .filter((v) => (!state || state.includes(v.state)) && (!severity || severity.includes(v.severity)))
        .filter((v) => !reportType || reportType.includes(v.report_type))
        .sort((x, y) => y.id - x.id);
      return connection(rows, a, vulnerabilityObj, "Vulnerability");
    },
    incidentManagementTimelineEvents: (a: Args) => {
      const n = numericId(a.incidentId, "Issue");
      const incident = s.issues.find((i) => i.id === n && i.project_id === p.id && canSeeIssue(s, i, me));
      if (!incident)
        return connection([], a, () => ({ __typename: "TimelineEventType" }), "TimelineEventType");
      return connection(
        m().timeline.filter((t) => t.issue_id === incident.id),
        a,
        (t) => timelineObj(t),
        "TimelineEventType",
      );
    },
  });

  const timelineObj = (t: ReturnType<typeof m>["timeline"][number]): Obj => {
    const author = s.users.find((u) => u.id === t.author_id);
    return {
      __typename: "TimelineEventType",
      id: gid("IncidentManagement::TimelineEvent", t.id),
      note: t.note,
      occurredAt: t.occurred_at,
      createdAt: t.created_at,
      action: "comment",
      author: author ? userObj(author) : null,
      timelineEventTags: connection(
        t.tags,
        {},
        (name) => ({ __typename: "TimelineEventTagType", name }),
        "TimelineEventTagType",
      ),
    };
  };

  const group = (g: Group): Record<string, Value> => {
    const owner = () => !!me && groupAccessLevel(s, me, g) >= ACCESS.guest;
    return {
      dependencyProxySetting: () =>
        owner() ? { __typename: "DependencyProxySetting", enabled: proxyRow(g).enabled } : null,
      dependencyProxyImagePrefix: () => `${new URL(origin).host}/${g.path}/dependency_proxy/containers`,
      dependencyProxyBlobCount: () => (owner() ? proxyRow(g).blobs.length : 0),
      dependencyProxyTotalSize: () => {
        const bytes = owner() ? proxyRow(g).blobs.reduce((n, b) => n + b.size, 0) : 0;
        return `${bytes} B`;
      },
      dependencyProxyImageTtlPolicy: () => ({
        __typename: "DependencyProxyImageTtlGroupPolicy",
        enabled: false,
        ttl: 90,
      }),
      dependencyProxyBlobs: (a: Args) =>
        connection(
          owner() ? proxyRow(g).blobs : [],
          a,
          (b) => ({
            __typename: "DependencyProxyBlob",
            id: gid("DependencyProxy::Blob", b.id),
            fileName: b.file_name,
            size: `${b.size} B`,
            createdAt: b.created_at,
          }),
          "DependencyProxyBlob",
        ),
    };
  };

  const payload = (name: string, key: string, value: Value, errors: string[] = []) => ({
    __typename: `${name}Payload`,
    errors,
    [key]: value,
  });

  /** Labels by title, assignees by username, from GitLab's global ids. */
  const labelTitles = (p: Project, ids: unknown): string[] =>
    (Array.isArray(ids) ? ids : []).map((x) => {
      const l = s.labels.find((r) => r.project_id === p.id && r.id === numericId(x, "ProjectLabel"));
      if (!l) throw new GqlError(`Label ${String(x)} does not exist in ${projectFullPath(s, p)}`);
      return l.name;
    });
  const userIds = (ids: unknown): number[] =>
    (Array.isArray(ids) ? ids : []).map((x) => {
      const u = s.users.find((r) => r.id === numericId(x, "User"));
      if (!u) throw new GqlError(`User ${String(x)} does not exist`);
      return u.id;
    });

  const applyWidgets = (i: Issue, input: Args) => {
    const p = projectOf(i);
    const d = input.descriptionWidget as Args | undefined;
    if (d && typeof d.description === "string") i.description = d.description;
    const l = input.labelsWidget as Args | undefined;
    if (l) {
      if (Array.isArray(l.labelIds)) i.labels = labelTitles(p, l.labelIds);
      const add = labelTitles(p, l.addLabelIds);
      const remove = labelTitles(p, l.removeLabelIds);
      i.labels = [...new Set([...i.labels, ...add])].filter((t) => !remove.includes(t));
    }
    const a = input.assigneesWidget as Args | undefined;
    if (a && Array.isArray(a.assigneeIds)) i.assignee_ids = userIds(a.assigneeIds);
    const st = input.statusWidget as Args | undefined;
    if (st && st.status !== undefined) {
      const n = numericId(st.status, "WorkItems::Statuses::SystemDefined::Status");
      if (!STATUSES.some((x) => x.id === n) || !HAS_STATUS.has(typeOf(i)))
        throw new GqlError("Status is not allowed for this work item type");
      m().workItemStatus[i.id] = String(n);
    }
    if (typeof input.confidential === "boolean") i.confidential = input.confidential;
    i.updated_at = s.clock.iso();
  };

  const mutation = {
    workItemCreate: (a: Args) => {
      const input = (a.input ?? {}) as Args;
      const path = String(input.namespacePath ?? input.projectPath ?? "");
      const p = findProject(s, path);
      if (!me || !p || !canReadProject(s, me, p) || projectAccessLevel(s, me, p) < ACCESS.guest)
        throw new GqlError(DENIED);
      const kind = typeByGid(input.workItemTypeId);
      if (!kind) throw new GqlError(`Work item type ${String(input.workItemTypeId)} does not exist`);
      if (typeof input.title !== "string" || !input.title.trim())
        return payload("WorkItemCreate", "workItem", null, ["Title can't be blank"]);
      const i = createIssue(s, p, me.id, { title: input.title });
      if (kind !== "issue") m().workItemTypes[i.id] = kind;
      applyWidgets(i, input);
      return payload("WorkItemCreate", "workItem", workItemObj(i));
    },
    workItemUpdate: (a: Args) => {
      const input = (a.input ?? {}) as Args;
      const i = workItem(input.id, ACCESS.reporter);
      if (typeof input.title === "string") {
        if (!input.title.trim()) return payload("WorkItemUpdate", "workItem", null, ["Title can't be blank"]);
        i.title = input.title;
      }
      if (input.stateEvent === "CLOSE" && i.state === "opened") {
        i.state = "closed";
        i.closed_at = s.clock.iso();
        i.closed_by_id = me!.id;
      } else if (input.stateEvent === "REOPEN" && i.state === "closed") {
        i.state = "opened";
        i.closed_at = null;
        i.closed_by_id = null;
      }
      applyWidgets(i, input);
      return payload("WorkItemUpdate", "workItem", workItemObj(i));
    },
    workItemConvert: (a: Args) => {
      const input = (a.input ?? {}) as Args;
      const i = workItem(input.id, ACCESS.reporter);
      const kind = typeByGid(input.workItemTypeId);
      if (!kind) throw new GqlError(`Work item type ${String(input.workItemTypeId)} does not exist`);
      if (kind === "issue") delete m().workItemTypes[i.id];
      else m().workItemTypes[i.id] = kind;
      if (!HAS_STATUS.has(kind)) delete m().workItemStatus[i.id];
      i.updated_at = s.clock.iso();
      return payload("WorkItemConvert", "workItem", workItemObj(i));
    },
    issueMove: (a: Args) => {
      const input = (a.input ?? {}) as Args;
      const from = findProject(s, String(input.projectPath ?? ""));
      const to = findProject(s, String(input.targetProjectPath ?? ""));
      const i = from && s.issues.find((x) => x.project_id === from.id && String(x.iid) === String(input.iid));
      if (!me || !from || !to || !i || !canSeeIssue(s, i, me)) throw new GqlError(DENIED);
      if (
        projectAccessLevel(s, me, from) < ACCESS.reporter ||
        projectAccessLevel(s, me, to) < ACCESS.reporter
      )
        throw new GqlError(DENIED);
      if (from.id === to.id)
        return payload("IssueMove", "issue", null, ["Cannot move issue to project it originates from!"]);
      const moved = createIssue(s, to, i.author_id, { title: i.title, description: i.description });
      moved.labels = i.labels.filter((t) => labelRow(to, t));
      moved.assignee_ids = [...i.assignee_ids];
      if (m().workItemTypes[i.id]) m().workItemTypes[moved.id] = m().workItemTypes[i.id]!;
      i.state = "closed";
      i.closed_at = s.clock.iso();
      i.closed_by_id = me.id;
      addNote(s, i, me.id, `moved to ${projectFullPath(s, to)}#${moved.iid}`, { system: true });
      const full = projectFullPath(s, to);
      return payload("IssueMove", "issue", {
        __typename: "Issue",
        id: gid("Issue", moved.id),
        iid: String(moved.iid),
        title: moved.title,
        state: moved.state,
        webUrl: `${origin}/${full}/-/issues/${moved.iid}`,
      });
    },
    timelineEventCreate: (a: Args) => {
      const input = (a.input ?? {}) as Args;
      const n = numericId(input.incidentId, "Issue");
      const i = s.issues.find((x) => x.id === n);
      const p = i && projectOf(i);
      if (!me || !i || !p || !canSeeIssue(s, i, me) || projectAccessLevel(s, me, p) < ACCESS.developer)
        throw new GqlError(DENIED);
      if (typeOf(i) !== "incident")
        return payload("TimelineEventCreate", "timelineEvent", null, [
          "Timeline events can only be added to incidents",
        ]);
      const tags = Array.isArray(input.timelineEventTagNames) ? input.timelineEventTagNames.map(String) : [];
      const bad = tags.find((t) => !TIMELINE_TAGS.includes(t));
      if (bad)
        return payload("TimelineEventCreate", "timelineEvent", null, [`Following tags don't exist: ${bad}`]);
      if (typeof input.note !== "string" || !input.note.trim())
        return payload("TimelineEventCreate", "timelineEvent", null, ["Timeline text can't be blank"]);
      const t = {
        id: nextId(s, "record2"),
        issue_id: i.id,
        note: input.note,
        occurred_at: String(input.occurredAt ?? s.clock.iso()),
        tags,
        author_id: me.id,
        created_at: s.clock.iso(),
      };
      m().timeline.push(t);
      return payload("TimelineEventCreate", "timelineEvent", timelineObj(t));
    },
    vulnerabilityConfirm: (a: Args) => {
      const input = (a.input ?? {}) as Args;
      const v = vulnerability(input.id, ACCESS.developer);
      v.state = "confirmed";
      v.dismissal_reason = null;
      if (typeof input.comment === "string" && input.comment) v.notes.push(input.comment);
      v.updated_at = s.clock.iso();
      return payload("VulnerabilityConfirm", "vulnerability", vulnerabilityObj(v));
    },
    vulnerabilityDismiss: (a: Args) => {
      const input = (a.input ?? {}) as Args;
      const v = vulnerability(input.id, ACCESS.developer);
      const reasons = [
        "ACCEPTABLE_RISK",
        "FALSE_POSITIVE",
        "MITIGATING_CONTROL",
        "USED_IN_TESTS",
        "NOT_APPLICABLE",
      ];
      if (input.dismissalReason !== undefined && !reasons.includes(String(input.dismissalReason)))
        throw new GqlError(
          `Argument 'dismissalReason' has an invalid value (${String(input.dismissalReason)})`,
        );
      v.state = "dismissed";
      v.dismissal_reason = input.dismissalReason ? String(input.dismissalReason).toLowerCase() : null;
      if (typeof input.comment === "string" && input.comment) v.notes.push(input.comment);
      v.updated_at = s.clock.iso();
      return payload("VulnerabilityDismiss", "vulnerability", vulnerabilityObj(v));
    },
    updateDependencyProxySettings: (a: Args) => {
      const input = (a.input ?? {}) as Args;
      const g = findGroup(s, String(input.groupPath ?? ""));
      if (!me || !g || groupAccessLevel(s, me, g) < ACCESS.maintainer) throw new GqlError(DENIED);
      const row = proxyRow(g);
      if (typeof input.enabled === "boolean") row.enabled = input.enabled;
      if (typeof input.identity === "string") row.identity = input.identity;
      if (typeof input.secret === "string") row.secret_set = true;
      return payload("UpdateDependencyProxySettings", "dependencyProxySetting", {
        __typename: "DependencyProxySetting",
        enabled: row.enabled,
        identity: row.identity,
      });
    },
  };

  return { root, project, group, mutation, workItemObj };
}
