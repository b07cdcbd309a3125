import { describe, expect, it } from "vitest";
import { freshForge } from "./helpers.js";

// forge/index.ts's seed and dump over HTTP on the default dataset.
const { f } = freshForge();

const P = "/projects/1";

describe("seeding and dumping a project's extra records", () => {
  const seed = {
    labels: [{ project: "acme/widgets", name: "triage", color: "#aa0000", description: "New" }],
    milestones: [{ project: "acme/widgets", title: "2.0", due_date: "2026-12-01" }],
    releases: [
      { project: "acme/widgets", tag_name: "v1.4.0", name: "1.4", description: "notes", milestones: ["2.0"] },
    ],
    wiki: [{ project: "acme/widgets", title: "Runbook", content: "restart it" }],
    artifacts: [
      {
        project: "acme/widgets",
        job: "test",
        ref: "feature/layout-cache",
        files: { "junit.xml": "<testsuite/>" },
      },
    ],
  };

  it("serves seeded objects through the API and dumps them in the seed's shape (round trip)", async () => {
    expect((await f.control("POST", "/seed", seed)).status).toBe(200);
    expect((await f.api(`${P}/labels/triage`)).body).toMatchObject({ color: "#aa0000", description: "New" });
    expect((await f.api(`${P}/releases/v1.4.0`)).body.milestones).toMatchObject([{ title: "2.0" }]);
    expect((await f.api(`${P}/wikis/Runbook`)).body.content).toBe("restart it");
    const failed = (await f.api(`${P}/pipelines/2/jobs`)).body.find((j: any) => j.name === "test");
    expect((await f.api(`${P}/jobs/${failed.id}/artifacts/junit.xml`)).body).toBe("<testsuite/>");
    const dump = (await f.control("GET", "/state")).body;
    // the labels issues name (bug, feature, ...) are stored labels too, once read
    expect(dump).toMatchObject({
      ...seed,
      labels: expect.arrayContaining(seed.labels.map((l) => expect.objectContaining(l))),
    });
    expect((await f.control("POST", "/seed", { ...dump, replace: true })).status).toBe(200);
    expect((await f.control("GET", "/state")).body).toMatchObject({
      labels: dump.labels,
      milestones: dump.milestones,
      releases: dump.releases,
      wiki: dump.wiki,
      artifacts: dump.artifacts,
    });
  });

  it.each([
    ["unknown project", { labels: [{ project: "no/such", name: "x" }] }, /does not exist/],
    [
      "release on a missing tag without ref",
      { releases: [{ project: "acme/widgets", tag_name: "v9" }] },
      /no valid ref/,
    ],
    [
      "artifacts of an unknown job",
      { artifacts: [{ project: "acme/widgets", job: "nope", files: {} }] },
      /no job/,
    ],
  ])("refuses %s (400) and changes nothing", async (_n, body, message) => {
    const r = await f.control("POST", "/seed", body);
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body)).toMatch(message);
    expect((await f.control("GET", "/state")).body.labels).toEqual([]);
  });
});
