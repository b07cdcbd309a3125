import { z } from "zod";
import { enc } from "../forge/api.js";
import { groupId, groupTreeFilters, id, pagination, projectId, tool } from "./define.js";

/**
 * A milestone's issues, merge requests and burndown events (project and group milestones), group
 * milestones themselves, and promoting a project milestone to its group, by gitlab-mcp's names
 * (get_milestone_issue is singular there, and lists them all).
 */

const pm = (p: string | number, m: number) => `/projects/${enc(p)}/milestones/${m}`;
const gms = (g: string | number) => `/groups/${enc(g)}/milestones`;
const PM = "/projects/:id/milestones/:milestone_id";
const GM = "/groups/:id/milestones";
const date = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .describe("YYYY-MM-DD");
const milestoneId = id.describe("The milestone's id (not its iid)");

const ofMilestone = [
  ["issues", "get_milestone_issue", "get_group_milestone_issue", "the issues"],
  [
    "merge_requests",
    "get_milestone_merge_requests",
    "get_group_milestone_merge_requests",
    "the merge requests",
  ],
  [
    "burndown_events",
    "get_milestone_burndown_events",
    "get_group_milestone_burndown_events",
    "the burndown events (issues opened, closed, reopened; a GitLab Premium feature)",
  ],
] as const;

export const milestoneItemTools = ofMilestone.flatMap(([seg, projectName, groupName, what]) => [
  tool({
    name: projectName,
    description: `List ${what} of a project milestone.`,
    write: false,
    endpoint: `GET ${PM}/${seg}`,
    input: { project_id: projectId, milestone_id: milestoneId, ...pagination },
    run: (api, { project_id, milestone_id, ...q }) => api.get(`${pm(project_id, milestone_id)}/${seg}`, q),
  }),
  tool({
    name: groupName,
    description: `List ${what} of a group milestone (across the group's projects).`,
    write: false,
    endpoint: `GET ${GM}/:milestone_id/${seg}`,
    input: { group_id: groupId, milestone_id: milestoneId, ...pagination },
    run: (api, { group_id, milestone_id, ...q }) => api.get(`${gms(group_id)}/${milestone_id}/${seg}`, q),
  }),
]);

export const groupMilestoneTools = [
  tool({
    name: "promote_milestone",
    description:
      "Promote a project milestone to a milestone of the project's group (its issues and merge requests keep it).",
    write: true,
    endpoint: `POST ${PM}/promote`,
    input: { project_id: projectId, milestone_id: milestoneId },
    run: (api, a) => api.post(`${pm(a.project_id, a.milestone_id)}/promote`),
  }),
  tool({
    name: "list_group_milestones",
    description: "List the milestones of a group (with include_ancestors, also its parent groups').",
    write: false,
    endpoint: `GET ${GM}`,
    input: {
      group_id: groupId,
      state: z.enum(["active", "closed"]).optional(),
      title: z.string().optional(),
      search: z.string().optional(),
      ...groupTreeFilters,
      ...pagination,
    },
    run: (api, { group_id, ...q }) => api.get(gms(group_id), q),
  }),
  tool({
    name: "get_group_milestone",
    description: "Get one group milestone by its id.",
    write: false,
    endpoint: `GET ${GM}/:milestone_id`,
    input: { group_id: groupId, milestone_id: milestoneId },
    run: (api, a) => api.get(`${gms(a.group_id)}/${a.milestone_id}`),
  }),
  tool({
    name: "create_group_milestone",
    description: "Create a group milestone.",
    write: true,
    endpoint: `POST ${GM}`,
    input: {
      group_id: groupId,
      title: z.string().min(1),
      description: z.string().optional(),
      start_date: date.optional(),
      due_date: date.optional(),
    },
    run: (api, { group_id, ...body }) => api.post(gms(group_id), body),
  }),
  tool({
    name: "edit_group_milestone",
    description: "Update a group milestone: title, description, dates, or close/activate it.",
    write: true,
    endpoint: `PUT ${GM}/:milestone_id`,
    input: {
      group_id: groupId,
      milestone_id: milestoneId,
      title: z.string().min(1).optional(),
      description: z.string().optional(),
      start_date: date.optional(),
      due_date: date.optional(),
      state_event: z.enum(["close", "activate"]).optional(),
    },
    run: (api, { group_id, milestone_id, ...body }) => api.put(`${gms(group_id)}/${milestone_id}`, body),
  }),
  tool({
    name: "delete_group_milestone",
    description: "Delete a group milestone (its issues and merge requests lose it).",
    write: true,
    destructive: true,
    endpoint: `DELETE ${GM}/:milestone_id`,
    input: { group_id: groupId, milestone_id: milestoneId },
    run: (api, a) => api.delete(`${gms(a.group_id)}/${a.milestone_id}`),
  }),
];
