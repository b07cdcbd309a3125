import { describe, expect, it } from "vitest";
import { forgeWithToolClient } from "../forge-and-mcp.js";

/** A working day against the simulator's seeded forge (acme/widgets), through the MCP tools. */

describe("tools on seeded forge data", () => {
  const { raw, call } = forgeWithToolClient("day");

  it("answers JSON results compact, without indentation (fewer tokens for the model)", async () => {
    for (const [name, args] of [
      ["whoami", {}],
      ["discover_tools", {}],
      ["list_projects", { search: "widgets" }],
    ] as const) {
      const r = await raw(name, args);
      const text = r.content[0]!.text;
      expect(text).toBe(JSON.stringify(JSON.parse(text)));
    }
  });

  it("finds a project and reads its README as text", async () => {
    const projects = await call("list_projects", { search: "widgets" });
    expect(projects.items.map((p: { path_with_namespace: string }) => p.path_with_namespace)).toContain(
      "acme/widgets",
    );
    const file = await call("get_file_contents", { project_id: "acme/widgets", file_path: "README.md" });
    expect(file.encoding).toBe("text");
    expect(file.content).toMatch(/^# Widgets/);
    const tree = await call("get_repository_tree", { project_id: "acme/widgets", path: "src" });
    expect(tree.items.map((e: { path: string }) => e.path)).toContain("src/widget.ts");
  });

  it("lists branches and commits", async () => {
    const branches = await call("list_branches", { project_id: "acme/widgets" });
    expect(branches.items.map((b: { name: string }) => b.name)).toContain("feature/layout-cache");
    const commits = await call("list_commits", {
      project_id: "acme/widgets",
      ref_name: "feature/layout-cache",
      per_page: 1,
    });
    expect(commits.items).toHaveLength(1);
  });

  it("creates an issue, comments on it and closes it", async () => {
    const issue = await call("create_issue", {
      project_id: "acme/widgets",
      title: "Layout flickers",
      description: "On resize",
    });
    expect(issue.iid).toBeGreaterThan(0);
    await call("create_issue_note", {
      project_id: "acme/widgets",
      issue_iid: issue.iid,
      body: "Seen on Firefox too",
    });
    const notes = await call("list_issue_notes", { project_id: "acme/widgets", issue_iid: issue.iid });
    expect(notes.items.map((n: { body: string }) => n.body)).toContain("Seen on Firefox too");
    const closed = await call("update_issue", {
      project_id: "acme/widgets",
      issue_iid: issue.iid,
      state_event: "close",
    });
    expect(closed.state).toBe("closed");
  });

  it("reviews a merge request: diffs, discussions, approvals", async () => {
    const mrs = await call("list_merge_requests", { project_id: "acme/widgets", state: "all" });
    expect(mrs.items.length).toBeGreaterThan(0);
    const iid = mrs.items[0].iid;
    const diffs = await call("get_merge_request_diffs", {
      project_id: "acme/widgets",
      merge_request_iid: iid,
    });
    expect(diffs.items.length).toBeGreaterThan(0);
    await call("mr_discussions", { project_id: "acme/widgets", merge_request_iid: iid });
    await call("get_merge_request_approvals", { project_id: "acme/widgets", merge_request_iid: iid });
  });

  it("reads a pipeline's jobs and a job log", async () => {
    const pipelines = await call("list_pipelines", { project_id: "acme/widgets" });
    expect(pipelines.items.length).toBeGreaterThan(0);
    const jobs = await call("list_pipeline_jobs", {
      project_id: "acme/widgets",
      pipeline_id: pipelines.items[0].id,
    });
    const log = await call("get_pipeline_job_output", {
      project_id: "acme/widgets",
      job_id: jobs.items[0].id,
    });
    expect(typeof log).toBe("string");
    expect(log.length).toBeGreaterThan(0);
  });
});
