import { Gitlab } from "@gitbeaker/rest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TOOLSETS } from "../src/tools/index.js";
import { type Forge, startForge } from "./forge-sim.js";
import { BEAKER_A_SEED, beakerRowsA, NOT_IN_GITBEAKER_A } from "./gitbeaker-a.js";
import { assetServer, beakerRowsB, beakerSeedB, NOT_IN_GITBEAKER_B } from "./gitbeaker-b.js";
import { BEAKER_C_SEED, beakerRowsC, NOT_IN_GITBEAKER_C } from "./gitbeaker-c.js";
import { BEAKER_D_SEED, beakerRowsD, NOT_IN_GITBEAKER_D } from "./gitbeaker-d.js";
import { type Ctx, type Gl, has, logged, type Row, row, W } from "./gitbeaker-rows.js";

/**
 * A GitLab client written by others, @gitbeaker/rest, drives the forge simulator over the surface
 * forge-mcp's tools use: one row per forge endpoint a tool calls (the tool's `endpoint`), run in
 * order on the default dataset as alice. Each row's requests must all be that endpoint (gitbeaker
 * may page), must succeed, and the answer must be what gitbeaker's types promise. Endpoints
 * gitbeaker has no method for are listed with the reason, so a new tool must add a row or a reason.
 */

const rows: Row[] = [
  row("GET /projects", (gl) => gl.Projects.all({ search: "widg", owned: true }), has("path", "widgets")),
  row(
    "GET /projects/:id",
    (gl) => gl.Projects.show(W),
    (p) => expect(p.default_branch).toBe("main"),
  ),
  row(
    "POST /projects",
    (gl) => gl.Projects.create({ name: "beaker", visibility: "private" }),
    (p) => expect(p.path_with_namespace).toBe("alice/beaker"),
  ),
  row(
    "POST /projects/:id/fork",
    (gl) => gl.Projects.fork(W, { path: "widgets-beaker" }),
    (p) => expect(p.forked_from_project.id).toBe(1),
  ),
  row("GET /groups", (gl) => gl.Groups.all({ search: "acme" }), has("full_path", "acme")),
  row(
    "GET /groups/:id",
    (gl) => gl.Groups.show("acme"),
    (g) => expect(g.name).toBe("Acme"),
  ),
  row(
    "GET /groups/:id/projects",
    (gl) => gl.Groups.allProjects("acme", { includeSubgroups: true }),
    has("path", "infra"),
  ),
  row("GET /groups/:id/members (…/members/all)", (gl) => gl.GroupMembers.all("acme"), has("username", "bob")),
  row("GET /namespaces", (gl) => gl.Namespaces.all(), has("kind", "group")),
  row(
    "GET /namespaces/:id",
    (gl) => gl.Namespaces.show("acme"),
    (n) => expect(n.full_path).toBe("acme"),
  ),
  row(
    "GET /user",
    (gl) => gl.Users.showCurrentUser(),
    (u) => expect(u.username).toBe("alice"),
  ),
  row("GET /users", (gl) => gl.Users.all({ search: "bo" }), has("username", "bob")),
  row(
    "GET /users/:id (GET /users?username=)",
    (gl) => gl.Users.show(2),
    (u) => expect(u.id).toBe(2),
  ),
  row(
    "GET /todos",
    (gl) => gl.TodoLists.all({ state: "pending" }),
    (t, c) => {
      expect(t.length).toBeGreaterThan(0);
      c.todo = t[0].id;
    },
  ),
  row(
    "POST /todos/:id/mark_as_done",
    (gl, c) => gl.TodoLists.done({ todoId: c.todo }),
    (t) => expect(t.state).toBe("done"),
  ),
  row("GET /events (GET /users/:id/events)", (gl) => gl.Events.all(), has("action_name", "opened")),
  row("GET /projects/:id/events", (gl) => gl.Events.all({ projectId: W }), has("project_id", 1)),
  // labels, milestones
  row("GET /projects/:id/labels", (gl) => gl.ProjectLabels.all(W), has("name", "bug")),
  row(
    "POST /projects/:id/labels",
    (gl) => gl.ProjectLabels.create(W, "beaker", "#00aa00"),
    (l) => expect(l.color).toBe("#00aa00"),
  ),
  row(
    "GET /projects/:id/labels/:label_id",
    (gl) => gl.ProjectLabels.show(W, "bug"),
    (l) => expect(l.name).toBe("bug"),
  ),
  row(
    "PUT /projects/:id/labels/:label_id",
    (gl) => gl.ProjectLabels.edit(W, "beaker", { newName: "beaker-2" }),
    (l) => expect(l.name).toBe("beaker-2"),
  ),
  row(
    "DELETE /projects/:id/labels/:label_id",
    (gl) => gl.ProjectLabels.remove(W, "beaker-2"),
    () => {},
  ),
  row(
    "POST /projects/:id/milestones",
    (gl) => gl.ProjectMilestones.create(W, "beaker-1", { dueDate: "2026-12-31" }),
    (m, c) => {
      expect(m.state).toBe("active");
      c.milestone = m.id;
    },
  ),
  row("GET /projects/:id/milestones", (gl) => gl.ProjectMilestones.all(W), has("title", "beaker-1")),
  row(
    "GET /projects/:id/milestones/:milestone_id",
    (gl, c) => gl.ProjectMilestones.show(W, c.milestone),
    (m) => expect(m.due_date).toBe("2026-12-31"),
  ),
  row(
    "PUT /projects/:id/milestones/:milestone_id",
    (gl, c) => gl.ProjectMilestones.edit(W, c.milestone, { stateEvent: "close" }),
    (m) => expect(m.state).toBe("closed"),
  ),
  row(
    "DELETE /projects/:id/milestones/:milestone_id",
    (gl, c) => gl.ProjectMilestones.remove(W, c.milestone),
    () => {},
  ),
  // issues
  row(
    "GET /projects/:id/issues (GET /issues)",
    (gl) => gl.Issues.all({ projectId: W, state: "opened" }),
    has("state", "opened"),
  ),
  row(
    "POST /projects/:id/issues",
    (gl) => gl.Issues.create(W, "From gitbeaker", { labels: "bug" }),
    (i, c) => {
      expect(i.labels).toEqual(["bug"]);
      c.issue = i.iid;
    },
  ),
  row(
    "GET /projects/:id/issues/:iid",
    (gl, c) => gl.Issues.show(c.issue, { projectId: W }),
    (i) => expect(i.title).toBe("From gitbeaker"),
  ),
  row(
    "PUT /projects/:id/issues/:iid",
    (gl, c) => gl.Issues.edit(W, c.issue, { stateEvent: "close" }),
    (i) => expect(i.state).toBe("closed"),
  ),
  row(
    "POST /projects/:id/issues/:iid/notes",
    (gl, c) => gl.IssueNotes.create(W, c.issue, "noted"),
    (n, c) => {
      expect(n.body).toBe("noted");
      c.note = n.id;
    },
  ),
  row("GET /projects/:id/issues/:iid/notes", (gl, c) => gl.IssueNotes.all(W, c.issue), has("body", "noted")),
  row(
    "PUT /projects/:id/issues/:iid/notes/:note_id",
    (gl, c) => gl.IssueNotes.edit(W, c.issue, c.note, { body: "re-noted" }),
    (n) => expect(n.body).toBe("re-noted"),
  ),
  row(
    "POST /projects/:id/issues/:iid/discussions",
    (gl, c) => gl.IssueDiscussions.create(W, c.issue, "a thread"),
    (d, c) => {
      expect(d.notes[0].body).toBe("a thread");
      c.discussion = d.id;
    },
  ),
  row(
    "GET /projects/:id/issues/:iid/discussions",
    (gl, c) => gl.IssueDiscussions.all(W, c.issue),
    (d, c) => expect(d.map((x: { id: string }) => x.id)).toContain(c.discussion),
  ),
  row(
    "POST /projects/:id/issues/:iid/discussions/:discussion_id/notes",
    (gl, c) => gl.IssueDiscussions.addNote(W, c.issue, c.discussion, "a reply"),
    (n) => expect(n.body).toBe("a reply"),
  ),
  row(
    "POST /projects/:id/issues/:iid/links",
    (gl, c) => gl.IssueLinks.create(W, c.issue, W, 1, { linkType: "relates_to" }),
    (l, c) => {
      expect(l.target_issue.iid).toBe(1);
      c.link = l.source_issue.issue_link_id ?? l.target_issue.issue_link_id;
    },
  ),
  row(
    "GET /projects/:id/issues/:iid/links",
    (gl, c) => gl.IssueLinks.all(W, c.issue),
    (l, c) => {
      expect(l[0].iid).toBe(1);
      c.link = l[0].issue_link_id;
    },
  ),
  row(
    "DELETE /projects/:id/issues/:iid/links/:issue_link_id",
    (gl, c) => gl.IssueLinks.remove(W, c.issue, c.link),
    () => {},
  ),
  row(
    "DELETE /projects/:id/issues/:iid",
    (gl, c) => gl.Issues.remove(W, c.issue),
    () => {},
  ),
  // merge requests
  row(
    "GET /projects/:id/merge_requests (GET /merge_requests)",
    (gl) => gl.MergeRequests.all({ projectId: W, state: "opened" }),
    has("iid", 1),
  ),
  row(
    "GET /projects/:id/merge_requests/:iid",
    (gl) => gl.MergeRequests.show(W, 1),
    (m) => expect(m.source_branch).toBe("feature/layout-cache"),
  ),
  row(
    "GET /projects/:id/merge_requests/:iid/diffs",
    (gl) => gl.MergeRequests.allDiffs(W, 1),
    has("new_path", "src/widget.ts"),
  ),
  row(
    "GET /projects/:id/merge_requests/:iid/changes",
    (gl) => gl.MergeRequests.showChanges(W, 1),
    (m) => expect(m.changes.length).toBeGreaterThan(0),
  ),
  row(
    "GET /projects/:id/merge_requests/:iid/commits",
    (gl) => gl.MergeRequests.allCommits(W, 1),
    (x) => expect(x[0].title).toBe("Cache widget layouts"),
  ),
  row(
    "GET /projects/:id/merge_requests/:iid/pipelines",
    (gl) => gl.MergeRequests.allPipelines(W, 1),
    (x) => expect(Array.isArray(x)).toBe(true),
  ),
  row(
    "POST /projects/:id/merge_requests",
    async (gl) => {
      await gl.Branches.create(W, "beaker/mr", "main");
      return gl.MergeRequests.create(W, "beaker/mr", "main", "Draft: from gitbeaker");
    },
    (m, c) => {
      expect(m.draft).toBe(true);
      c.mr = m.iid;
    },
  ),
  row(
    "PUT /projects/:id/merge_requests/:iid",
    (gl, c) => gl.MergeRequests.edit(W, c.mr, { addLabels: "beaker", title: "from gitbeaker" }),
    (m) => expect(m).toMatchObject({ labels: ["beaker"], draft: false }),
  ),
  row(
    "GET /projects/:id/merge_requests/:iid/approvals",
    (gl) => gl.MergeRequestApprovals.showConfiguration(W, { mergerequestIId: 2 }),
    (a) => expect(a.approved).toBeDefined(),
  ),
  row(
    "POST /projects/:id/merge_requests/:iid/approve",
    (gl) => gl.MergeRequestApprovals.approve(W, 2),
    (a) =>
      expect(a.approved_by.map((x: { user: { username: string } }) => x.user.username)).toContain("alice"),
  ),
  row(
    "POST /projects/:id/merge_requests/:iid/unapprove",
    (gl) => gl.MergeRequestApprovals.unapprove(W, 2),
    () => {},
  ),
  row(
    "POST /projects/:id/merge_requests/:iid/notes",
    (gl) => gl.MergeRequestNotes.create(W, 1, "LGTM from gitbeaker"),
    (n, c) => {
      expect(n.body).toBe("LGTM from gitbeaker");
      c.mrNote = n.id;
    },
  ),
  row(
    "GET /projects/:id/merge_requests/:iid/notes",
    (gl) => gl.MergeRequestNotes.all(W, 1),
    has("body", "LGTM from gitbeaker"),
  ),
  row(
    "POST /projects/:id/merge_requests/:iid/discussions",
    (gl) => gl.MergeRequestDiscussions.create(W, 1, "a review thread"),
    (d, c) => {
      c.thread = d.id;
    },
  ),
  row(
    "GET /projects/:id/merge_requests/:iid/discussions",
    (gl) => gl.MergeRequestDiscussions.all(W, 1),
    (d, c) => expect(d.map((x: { id: string }) => x.id)).toContain(c.thread),
  ),
  row(
    "POST /projects/:id/merge_requests/:iid/discussions/:discussion_id/notes",
    (gl, c) => gl.MergeRequestDiscussions.addNote(W, 1, c.thread, "fixed"),
    (n, c) => {
      expect(n.body).toBe("fixed");
      c.reply = n.id;
    },
  ),
  row(
    "PUT /projects/:id/merge_requests/:iid/discussions/:discussion_id",
    (gl, c) => gl.MergeRequestDiscussions.resolve(W, 1, c.thread, true),
    (d) => expect(d.notes[0].resolved).toBe(true),
  ),
  row(
    "PUT /projects/:id/merge_requests/:iid/discussions/:discussion_id/notes/:note_id",
    (gl, c) => gl.MergeRequestDiscussions.editNote(W, 1, c.thread, c.reply, { body: "fixed twice" }),
    (n) => expect(n.body).toBe("fixed twice"),
  ),
  row(
    "DELETE /projects/:id/merge_requests/:iid/discussions/:discussion_id/notes/:note_id",
    (gl, c) => gl.MergeRequestDiscussions.removeNote(W, 1, c.thread, c.reply),
    () => {},
  ),
  row(
    "GET /projects/:id/merge_requests/:iid/notes/:note_id",
    (gl, c) => gl.MergeRequestNotes.show(W, 1, c.mrNote),
    (n) => expect(n.body).toBe("LGTM from gitbeaker"),
  ),
  row(
    "PUT /projects/:id/merge_requests/:iid/notes/:note_id",
    (gl, c) => gl.MergeRequestNotes.edit(W, 1, c.mrNote, { body: "LGTM, edited" }),
    (n) => expect(n.body).toBe("LGTM, edited"),
  ),
  row(
    "DELETE /projects/:id/merge_requests/:iid/notes/:note_id",
    (gl, c) => gl.MergeRequestNotes.remove(W, 1, c.mrNote),
    () => {},
  ),
  row(
    "GET /projects/:id/merge_requests/:iid/approval_state",
    (gl) => gl.MergeRequestApprovals.showApprovalState(W, 1),
    (a) => expect(a.rules[0].rule_type).toBe("any_approver"),
  ),
  row(
    "GET /projects/:id/merge_requests/:iid/versions",
    (gl) => gl.MergeRequests.allDiffVersions(W, 1),
    (v, c) => {
      expect(v[0].head_commit_sha).toMatch(/^[0-9a-f]{40}$/);
      c.version = v[0].id;
    },
  ),
  row(
    "GET /projects/:id/merge_requests/:iid/versions/:version_id",
    (gl, c) => gl.MergeRequests.showDiffVersion(W, 1, c.version),
    (v) => expect(v.diffs.length).toBeGreaterThan(0),
  ),
  ...["one", "two", "three"].map((n) =>
    row(
      "POST /projects/:id/merge_requests/:iid/draft_notes",
      (gl) => gl.MergeRequestDraftNotes.create(W, 1, `draft ${n}`),
      (d, c) => {
        expect(d.note).toBe(`draft ${n}`);
        c[`draft_${n}`] = d.id;
      },
    ),
  ),
  row(
    "GET /projects/:id/merge_requests/:iid/draft_notes",
    (gl) => gl.MergeRequestDraftNotes.all(W, 1),
    has("note", "draft two"),
  ),
  row(
    "GET /projects/:id/merge_requests/:iid/draft_notes/:draft_note_id",
    (gl, c) => gl.MergeRequestDraftNotes.show(W, 1, c.draft_one),
    (d) => expect(d.note).toBe("draft one"),
  ),
  row(
    "PUT /projects/:id/merge_requests/:iid/draft_notes/:draft_note_id/publish",
    (gl, c) => gl.MergeRequestDraftNotes.publish(W, 1, c.draft_one),
    () => {},
  ),
  row(
    "DELETE /projects/:id/merge_requests/:iid/draft_notes/:draft_note_id",
    (gl, c) => gl.MergeRequestDraftNotes.remove(W, 1, c.draft_two),
    () => {},
  ),
  row(
    "POST /projects/:id/merge_requests/:iid/draft_notes/bulk_publish",
    (gl) => gl.MergeRequestDraftNotes.publishBulk(W, 1),
    () => {},
  ),
  row(
    "GET /projects/:id/merge_requests/:iid/notes",
    (gl) => gl.MergeRequestNotes.all(W, 1),
    (notes) =>
      expect(notes.map((n: { body: string }) => n.body)).toEqual(
        expect.arrayContaining(["draft one", "draft three"]),
      ),
  ),
  row(
    "POST /projects/:id/issues/:iid/notes (…/merge_requests/:iid/notes)",
    (gl) => gl.IssueNotes.create(W, 1, "a plain comment"),
    (n) => expect(n.noteable_type).toBe("Issue"),
  ),
  row(
    "GET /issues",
    (gl) => gl.Issues.all({ scope: "assigned_to_me" }),
    (x) => expect(x.length).toBeGreaterThan(0),
  ),
  row(
    "GET /projects/:id/members (…/members/all)",
    (gl) => gl.ProjectMembers.all(W),
    (x) => expect(Array.isArray(x)).toBe(true),
  ),
  row("GET /projects/:id/protected_branches", (gl) => gl.ProtectedBranches.all(W), has("name", "main")),
  row(
    "POST /projects/:id/protected_branches",
    (gl) => gl.ProtectedBranches.create(W, "stable", { pushAccessLevel: 0 }),
    (b) => expect(b.push_access_levels[0].access_level).toBe(0),
  ),
  row(
    "GET /projects/:id/protected_branches/:name",
    (gl) => gl.ProtectedBranches.show(W, "stable"),
    (b) => expect(b.name).toBe("stable"),
  ),
  row(
    "DELETE /projects/:id/protected_branches/:name",
    (gl) => gl.ProtectedBranches.remove(W, "stable"),
    () => {},
  ),
  row(
    "POST /projects/:id/statuses/:sha",
    (gl) => gl.Commits.editStatus(W, "main", "running", { name: "beaker-check" }),
    (st) => expect(st.status).toBe("running"),
  ),
  row(
    "GET /projects/:id/repository/commits/:sha/statuses",
    (gl) => gl.Commits.allStatuses(W, "main"),
    has("name", "beaker-check"),
  ),
  row(
    "POST /todos/mark_as_done",
    (gl) => gl.TodoLists.done(),
    () => {},
  ),
  row(
    "PUT /projects/:id",
    (gl) => gl.Projects.edit(W, { description: "edited by gitbeaker" }),
    (p) => expect(p.description).toBe("edited by gitbeaker"),
  ),
  row(
    "GET /namespaces/:id/exists",
    (gl) => gl.Namespaces.exists("acme"),
    (n) => expect(n.exists).toBe(true),
  ),
  row(
    "PUT /projects/:id/merge_requests/:iid/merge",
    (gl) => gl.MergeRequests.merge(W, 2),
    (m) => expect(m.state).toBe("merged"),
  ),
  // CI
  row("GET /projects/:id/pipelines", (gl) => gl.Pipelines.all(W, { ref: "main" }), has("ref", "main")),
  row(
    "GET /projects/:id/pipelines/:pipeline_id",
    (gl) => gl.Pipelines.show(W, 1),
    (p) => expect(p.id).toBe(1),
  ),
  row(
    "GET /projects/:id/pipelines/:pipeline_id/jobs",
    (gl) => gl.Jobs.all(W, { pipelineId: 1 }),
    (jobs, c) => {
      c.build = jobs.find((j: { name: string }) => j.name === "build").id;
    },
  ),
  row(
    "GET /projects/:id/jobs/:job_id",
    (gl, c) => gl.Jobs.show(W, c.build),
    (j) => expect(j.name).toBe("build"),
  ),
  row(
    "GET /projects/:id/jobs/:job_id/trace",
    (gl, c) => gl.Jobs.showLog(W, c.build),
    (log) => expect(String(log)).toContain("make build"),
  ),
  row(
    "GET /projects/:id/jobs/:job_id/artifacts/*artifact_path",
    (gl, c) => gl.JobArtifacts.downloadArchive(W, { jobId: c.build, artifactPath: "build/summary.txt" }),
    async (blob) => expect(await (blob as Blob).text()).toContain(": success"),
  ),
  row(
    "POST /projects/:id/jobs/:job_id/retry",
    (gl, c) => gl.Jobs.retry(W, c.build),
    (j) => expect(j.name).toBe("build"),
  ),
  row(
    "POST /projects/:id/pipeline",
    (gl) => gl.Pipelines.create(W, "main"),
    (p, c) => {
      expect(p.status).toBe("pending");
      c.pipeline = p.id;
    },
  ),
  row(
    "POST /projects/:id/pipelines/:pipeline_id/cancel",
    (gl, c) => gl.Pipelines.cancel(W, c.pipeline),
    (p) => expect(p.status).toBe("canceled"),
  ),
  row(
    "POST /projects/:id/pipelines/:pipeline_id/retry",
    (gl, c) => gl.Pipelines.retry(W, c.pipeline),
    (p) => expect(p.id).toBeDefined(),
  ),
  row(
    "POST /projects/:id/jobs/:job_id/cancel",
    async (gl, c) => {
      const jobs = await gl.Jobs.all(W, { pipelineId: c.pipeline });
      return gl.Jobs.cancel(W, jobs.find((j) => j.name === "build")!.id);
    },
    (j) => expect(j.status).toBe("canceled"),
  ),
  row(
    "POST /projects/:id/jobs/:job_id/play",
    (gl, c) => gl.Jobs.play(W, c.manual),
    (j) => expect(j.name).toBe("deploy"),
  ),
  // repository
  row(
    "GET /projects/:id/repository/tree",
    (gl) => gl.Repositories.allRepositoryTrees(W, { recursive: true }),
    has("path", "src/widget.ts"),
  ),
  row(
    "GET /projects/:id/repository/files/:file_path",
    (gl) => gl.RepositoryFiles.show(W, "README.md", "main"),
    (f) => expect(Buffer.from(f.content, "base64").toString()).toContain("# Widgets"),
  ),
  row(
    "POST|PUT /projects/:id/repository/files/:file_path",
    (gl) => gl.RepositoryFiles.create(W, "docs/beaker.md", "main", "# Beaker\n", "Add beaker doc"),
    (f) => expect(f.file_path).toBe("docs/beaker.md"),
  ),
  row(
    "DELETE /projects/:id/repository/files/:file_path",
    (gl) => gl.RepositoryFiles.remove(W, "docs/beaker.md", "main", "Drop beaker doc"),
    () => {},
  ),
  row(
    "GET /projects/:id/repository/files/:file_path/blame",
    (gl) => gl.RepositoryFiles.allFileBlames(W, "README.md", "main"),
    (b) => expect(b[0].commit.id).toMatch(/^[0-9a-f]{40}$/),
  ),
  row("GET /projects/:id/repository/branches", (gl) => gl.Branches.all(W), has("name", "main")),
  row(
    "POST /projects/:id/repository/branches",
    (gl) => gl.Branches.create(W, "beaker/b", "main"),
    (b) => expect(b.name).toBe("beaker/b"),
  ),
  row(
    "GET /projects/:id/repository/branches/:branch",
    (gl) => gl.Branches.show(W, "beaker/b"),
    (b) => expect(b.name).toBe("beaker/b"),
  ),
  row(
    "DELETE /projects/:id/repository/branches/:branch",
    (gl) => gl.Branches.remove(W, "beaker/b"),
    () => {},
  ),
  row(
    "GET /projects/:id/repository/commits",
    (gl) => gl.Commits.all(W, { refName: "main" }),
    (x, c) => {
      expect(x.length).toBeGreaterThan(0);
      c.sha = x[0].id;
    },
  ),
  row(
    "GET /projects/:id/repository/commits/:sha",
    (gl, c) => gl.Commits.show(W, c.sha),
    (x, c) => expect(x.id).toBe(c.sha),
  ),
  row(
    "GET /projects/:id/repository/commits/:sha/diff",
    (gl, c) => gl.Commits.showDiff(W, c.sha),
    (x) => expect(Array.isArray(x)).toBe(true),
  ),
  row(
    "POST /projects/:id/repository/commits",
    (gl) =>
      gl.Commits.create(W, "main", "Two files", [
        { action: "create", filePath: "a.txt", content: "a" },
        { action: "create", filePath: "b.txt", content: "b" },
      ]),
    (x) => expect(x.title).toBe("Two files"),
  ),
  row(
    "GET /projects/:id/repository/compare",
    (gl) => gl.Repositories.compare(W, "main", "feature/layout-cache"),
    (x) => expect(x.diffs.length).toBeGreaterThan(0),
  ),
  // tags, releases, wiki
  row("GET /projects/:id/repository/tags", (gl) => gl.Tags.all(W), has("name", "v1.4.0")),
  row(
    "POST /projects/:id/repository/tags",
    (gl) => gl.Tags.create(W, "v1.5.0", "main"),
    (t) => expect(t.name).toBe("v1.5.0"),
  ),
  row(
    "GET /projects/:id/repository/tags/:tag_name",
    (gl) => gl.Tags.show(W, "v1.5.0"),
    (t) => expect(t.name).toBe("v1.5.0"),
  ),
  row(
    "POST /projects/:id/releases",
    (gl) => gl.ProjectReleases.create(W, { tagName: "v1.5.0", name: "1.5" }),
    (r) => expect(r.commit.parent_ids).toBeDefined(),
  ),
  row("GET /projects/:id/releases", (gl) => gl.ProjectReleases.all(W), has("tag_name", "v1.5.0")),
  row(
    "GET /projects/:id/releases/:tag_name",
    (gl) => gl.ProjectReleases.show(W, "v1.5.0"),
    (r) => expect(r.name).toBe("1.5"),
  ),
  row(
    "PUT /projects/:id/releases/:tag_name",
    (gl) => gl.ProjectReleases.edit(W, "v1.5.0", { name: "1.5.0" }),
    (r) => expect(r.name).toBe("1.5.0"),
  ),
  row(
    "DELETE /projects/:id/releases/:tag_name",
    (gl) => gl.ProjectReleases.remove(W, "v1.5.0"),
    () => {},
  ),
  row(
    "DELETE /projects/:id/repository/tags/:tag_name",
    (gl) => gl.Tags.remove(W, "v1.5.0"),
    () => {},
  ),
  row(
    "POST /projects/:id/wikis",
    (gl) => gl.ProjectWikis.create(W, "Start here", "Home page"),
    (w) => expect(w.slug).toBe("Home-page"),
  ),
  row("GET /projects/:id/wikis", (gl) => gl.ProjectWikis.all(W), has("slug", "Home-page")),
  row(
    "GET /projects/:id/wikis/:slug",
    (gl) => gl.ProjectWikis.show(W, "Home-page"),
    (w) => expect(w.content).toBe("Start here"),
  ),
  row(
    "PUT /projects/:id/wikis/:slug",
    (gl) => gl.ProjectWikis.edit(W, "Home-page", { content: "Moved" }),
    (w) => expect(w.content).toBe("Moved"),
  ),
  row(
    "DELETE /projects/:id/wikis/:slug",
    (gl) => gl.ProjectWikis.remove(W, "Home-page"),
    () => {},
  ),
  row(
    "GET /search (/projects/:id/search, /groups/:id/search)",
    (gl) => gl.Search.all("issues", "render"),
    (x) => expect(x.length).toBeGreaterThan(0),
  ),
  // award emoji, CI/CD variables, milestones, CI lint, deployments, environments, bridges, archives
  ...beakerRowsA,
  // issue extras, uploads, release downloads, group wikis and extras, code search, hooks, dependency proxy
  ...beakerRowsB,
  // pipeline schedules and triggers, environment and deployment changes
  ...beakerRowsC,
  ...beakerRowsD,
];

/** Tool endpoints gitbeaker has no method for, and why. */
const NOT_IN_GITBEAKER: Record<string, string> = {
  "GET /projects/:id/merge_requests/:iid/conflicts": "gitbeaker 43 has no method for an MR's conflicts",
  "GET /projects/:id/jobs/:job_id":
    "also the artifact list (list_job_artifacts reads the job); covered by its own row",
  "POST /api/graphql": "gitbeaker is a REST client",
  "GET /version (GET /job with a CI/CD job token)":
    "gitbeaker 43 reads /metadata, not /version; its Jobs.showConnectedJob (GET /job) throws before sending the job token (gitbeaker-sim.test.ts drives GET /job through gitbeaker's requester)",
  "PUT /projects/:id/merge_requests/:iid/draft_notes/:draft_note_id":
    "gitbeaker 43.8's MergeRequestDraftNotes.edit sends POST, where GitLab documents PUT (the simulator answers 404 as GitLab would)",
  ...NOT_IN_GITBEAKER_A,
  ...NOT_IN_GITBEAKER_B,
  ...NOT_IN_GITBEAKER_C,
  ...NOT_IN_GITBEAKER_D,
};

/** `GET /projects/:id/labels/:label_id` → a pattern for the request log's paths. */
function pattern(endpoint: string): RegExp {
  const [methods, target] = endpoint.split(" (")[0]!.split(" ") as [string, string];
  // the log holds paths without queries: a row checks a query the endpoint names (`?scope=blobs`)
  // by its answer
  const path = target.split("?")[0]!;
  const p = path
    .split("/")
    .map((seg) => (seg.startsWith("*") ? ".+" : seg.startsWith(":") ? "[^/]+" : seg))
    .join("/");
  const prefix = p.startsWith("/api/") ? "" : "/api/v4";
  return new RegExp(`^(${methods}) ${prefix}${p}(\\?.*)?$`);
}

describe("@gitbeaker/rest drives the forge simulator over the tools' surface", () => {
  let forge: Forge;
  let gl: Gl;
  const c: Ctx = {};
  let asset: Awaited<ReturnType<typeof assetServer>>;

  beforeAll(async () => {
    forge = await startForge();
    await forge.seed({
      pipelines: [{ project: W, ref: "main", jobs: [{ name: "deploy", stage: "deploy", status: "manual" }] }],
    });
    await forge.seed(BEAKER_A_SEED);
    asset = await assetServer();
    await forge.seed(beakerSeedB(asset.url));
    await forge.seed(BEAKER_C_SEED);
    await forge.seed(BEAKER_D_SEED);
    gl = new Gitlab({ host: forge.origin, token: "sim-forge-pat" });
    const jobs = await gl.Jobs.all(W, { scope: "manual" });
    c.manual = jobs.find((j) => j.name === "deploy")!.id;
  });
  afterAll(async () => {
    await forge?.close();
    await asset?.close();
  });

  it("has a row (or a reason) for every forge endpoint a tool calls", () => {
    const endpoints = new Set(
      Object.values(TOOLSETS)
        .flat()
        .map((t) => t.endpoint),
    );
    const covered = new Set([...rows.map((r) => r.endpoint), ...Object.keys(NOT_IN_GITBEAKER)]);
    expect([...endpoints].filter((e) => !covered.has(e))).toEqual([]);
  });

  it.each(rows.map((r, i) => [i + 1, r.endpoint, r] as const))("%i %s", async (_n, endpoint, r) => {
    const { out, log } = await logged(forge.origin, () => r.run(gl, c));
    const last = log.at(-1)!;
    expect(`${last.method} ${last.path}`).toMatch(pattern(endpoint));
    expect(
      // GitLab answers a release asset download with a redirect to the asset link's URL
      log.every((e) => e.status < 300 || (e.status === 302 && /\/releases\/[^/]+\/downloads\//.test(e.path))),
      JSON.stringify(log),
    ).toBe(true);
    await r.check(out, c);
  });
});
