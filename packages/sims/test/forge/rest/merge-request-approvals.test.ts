import { describe, expect, it } from "vitest";
import { BOB, freshForge, send } from "../helpers.js";

// rest/merge-request-approvals.ts (approval state) and merge-request-diffs.ts (versions): who sees
// what, over HTTP on the default dataset (alice's PAT unless bob's is given).
const { f } = freshForge();

const MR = "/projects/1/merge_requests/1";
const bob = BOB;

describe("approval state and versions", () => {
  it("one any-approver rule that follows approvals; one version with the merge request's diff", async () => {
    const before = (await f.api("/projects/1/merge_requests/2/approval_state")).body.rules[0];
    await f.api("/projects/1/merge_requests/2/approve", send("POST", {}, bob));
    const after = (await f.api("/projects/1/merge_requests/2/approval_state")).body.rules[0];
    expect(before.approved_by).toEqual([]);
    expect(after.approved_by.map((u: { username: string }) => u.username)).toEqual(["bob"]);
    const [v] = (await f.api(`${MR}/versions`)).body;
    const detail = (await f.api(`${MR}/versions/${v.id}`)).body;
    const mr = (await f.api(MR)).body;
    expect(v.head_commit_sha).toBe(mr.sha);
    expect(detail.diffs.map((d: { new_path: string }) => d.new_path)).toContain("src/widget.ts");
    expect((await f.api(`${MR}/versions/1`)).status).toBe(404);
  });

  it("a version's patch_id_sha is the diff's id, a SHA-1 as GitLab's (not null), kept on a rebase's same change", async () => {
    const [v] = (await f.api(`${MR}/versions`)).body;
    const [other] = (await f.api("/projects/1/merge_requests/2/versions")).body;
    expect(v.patch_id_sha).toMatch(/^[0-9a-f]{40}$/);
    expect((await f.api(`${MR}/versions/${v.id}`)).body.patch_id_sha).toBe(v.patch_id_sha);
    expect(other.patch_id_sha).not.toBe(v.patch_id_sha);
  });
});
