import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeWith } from "../../../../scripts/test-services.js";
import { definition } from "../../src/forge/index.js";
import { createSim, type RunningSim } from "../../src/index.js";

// Debian's python3-gitlab (3.12), a client written by others, against the forge simulator: one run
// of support/python_gitlab_smoke.py (about thirty calls across projects, labels, issues, merge
// requests, CI, repository, releases, groups, milestones and wiki) and a check of what it saw. The
// e2e set-up installs the package (scripts/test-services.ts).
const SCRIPT = fileURLToPath(new URL("../support/python_gitlab_smoke.py", import.meta.url));

describeWith("python3-gitlab")("Debian's python3-gitlab against the forge simulator", () => {
  let sim: RunningSim;
  beforeAll(async () => {
    sim = await createSim(definition, { quiet: true });
  });
  afterAll(async () => {
    await sim?.close();
  });

  it("runs the smoke script to the end and sees GitLab's answers", async () => {
    const { stdout } = await promisify(execFile)("/usr/bin/python3", [SCRIPT, sim.origin, "sim-forge-pat"], {
      timeout: 60_000,
    });
    const out = JSON.parse(stdout);
    expect(out).toMatchObject({
      user: "alice",
      project: "acme/widgets",
      owned: ["infra", "widgets"],
      readme: "# Widgets",
      label_by_id: "#00ff00",
      duplicate_label: 409,
      issue: ["closed", ["noted"]],
      mr: ["feature/layout-cache", 2, ["Cache widget layouts"]],
      jobs: ["build", "lint", "test"],
      commits: ["From python-gitlab"],
      compare: 1,
      group_projects: ["infra", "widgets"],
      milestone: "active",
      wiki: "Py-page",
    });
    expect(out.tree).toContain("src/widget.ts");
    expect(JSON.parse(out.raw).name).toBe("@acme/widgets");
    expect(out.labels).toEqual(expect.arrayContaining(["bug", "feature"]));
    expect(out.release_commit).toEqual(expect.arrayContaining(["created_at", "message", "parent_ids"]));
    expect(out.tags).toContain("v1.4.0");
    expect(out.trace).toMatch(/gitlab-runner/);
  });
});
