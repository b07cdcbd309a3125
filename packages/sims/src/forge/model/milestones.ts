import { str } from "../wire/params.js";
import { groupById, groupChain, groupFullPath, projectFullPath } from "./access.js";
import type { ForgeState, GroupMilestoneRow, MilestoneRow } from "./state.js";

/** Milestones as GitLab shows them: a project's, a group's, and either embedded in an issue or MR. */

export function milestoneJson(m: MilestoneRow, origin: string, web: string) {
  return {
    id: m.id,
    iid: m.iid,
    project_id: m.project_id,
    title: m.title,
    description: m.description,
    state: m.state,
    created_at: m.created_at,
    updated_at: m.updated_at,
    due_date: m.due_date,
    start_date: m.start_date,
    expired: false,
    web_url: `${origin}/${web}/-/milestones/${m.iid}`,
  };
}

/** A project milestone or a group milestone, by id, as GitLab embeds it in issues and merge requests. */
export function anyMilestoneJson(state: ForgeState, id: number, origin: string) {
  const m = state.milestones.find((x) => x.id === id);
  if (m) {
    const p = state.projects.find((x) => x.id === m.project_id)!;
    return milestoneJson(m, origin, projectFullPath(state, p));
  }
  const g = state.groupMilestones?.find((x) => x.id === id);
  const group = g && groupById(state, g.group_id);
  return g && group ? groupMilestoneJson(g, origin, groupFullPath(state, group)) : null;
}

export function groupMilestoneJson(m: GroupMilestoneRow, origin: string, groupPath: string) {
  const { project_id: _, ...rest } = milestoneJson({ ...m, project_id: 0 }, origin, `groups/${groupPath}`);
  return { ...rest, group_id: m.group_id };
}

/** Whether a project may use the milestone: its own, or one of the groups it sits in. */
export function milestoneUsable(state: ForgeState, projectId: number, id: number): boolean {
  if (state.milestones.some((m) => m.id === id && m.project_id === projectId)) return true;
  const p = state.projects.find((x) => x.id === projectId);
  if (p?.namespace.kind !== "group") return false;
  const chain = groupChain(state, groupById(state, p.namespace.id)!).map((g) => g.id);
  return (state.groupMilestones ?? []).some((m) => m.id === id && chain.includes(m.group_id));
}

/**
 * `milestone_id` on an issue or a merge request (kept in `issueMilestones` or `mrMilestones`): a
 * milestone of its project (or its groups), or 0/null to remove it; a refusal's message otherwise.
 */
export function setMilestone(
  state: ForgeState,
  links: "issueMilestones" | "mrMilestones",
  item: { id: number; project_id: number },
  raw: unknown,
): string | undefined {
  if (raw === undefined) return undefined;
  const id = raw === null || raw === "" ? 0 : Number(raw);
  if (id === 0) {
    delete state[links][item.id];
    return undefined;
  }
  if (!milestoneUsable(state, item.project_id, id))
    return "milestone_id does not name a milestone of this project";
  state[links][item.id] = id;
  return undefined;
}

/** A new milestone's own fields from a create body (a project's or a group's), active, stamped now. */
export function newMilestoneFields(title: string, body: Record<string, unknown>, now: string) {
  return {
    title,
    description: str(body.description) ?? "",
    state: "active" as const,
    start_date: str(body.start_date) ?? null,
    due_date: str(body.due_date) ?? null,
    created_at: now,
    updated_at: now,
  };
}

/**
 * A milestone's edit (`PUT …/milestones/:milestone_id`, a project's or a group's): title,
 * description, dates and `state_event` (close, activate) from the body; stamps `updated_at`.
 */
export function editMilestone(
  m: Pick<MilestoneRow, "title" | "description" | "start_date" | "due_date" | "state" | "updated_at">,
  body: Record<string, unknown>,
  now: string,
): void {
  if (typeof body.title === "string" && body.title.trim()) m.title = body.title.trim();
  if (typeof body.description === "string") m.description = body.description;
  for (const k of ["start_date", "due_date"] as const)
    if (typeof body[k] === "string") m[k] = body[k] as string;
  if (body.state_event === "close") m.state = "closed";
  if (body.state_event === "activate") m.state = "active";
  m.updated_at = now;
}
