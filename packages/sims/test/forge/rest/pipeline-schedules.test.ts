import { describe, expect, it } from "vitest";
import { nextRun, parseCron } from "../../../src/forge/model/cron.js";
import { BOB, del, freshForge, post, put, send } from "../helpers.js";

// rest/pipeline-schedules.ts over HTTP on the default dataset: alice owns acme/widgets (project 1);
// bob is a Developer there; root is an administrator (a maintainer everywhere).
const { f } = freshForge();

const P = "/projects/1/pipeline_schedules";
const ROOT = { "private-token": "sim-forge-pat-root" };

describe("pipeline schedules", () => {
  it("answers next_run_at from the cron in its zone, and refuses a cron or zone it cannot read", async () => {
    const s = await f.api(
      P,
      post({ description: "n", ref: "main", cron: "15 3 * * *", cron_timezone: "Asia/Tokyo" }),
    );
    expect(s.status).toBe(201);
    // 03:15 in Tokyo is 18:15 UTC
    expect(s.body.next_run_at).toMatch(/T18:15:00\.000Z$/);
    expect(s.body).toMatchObject({
      active: true,
      owner: { username: "alice" },
      last_pipeline: null,
      variables: [],
    });
    for (const [body, field] of [
      [{ cron: "61 * * * *" }, "cron"],
      [{ cron: "* * *" }, "cron"],
      [{ cron: "0 1 * * *", cron_timezone: "Mars/Olympus" }, "cron_timezone"],
    ] as const) {
      const r = await f.api(P, post({ description: "x", ref: "main", ...body }));
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ message: { [field]: ["is invalid syntax"] } });
    }
    expect((await f.api(P, post({ ref: "main" }))).body).toEqual({
      error: "description is missing, cron is missing",
    });
    expect((await f.api(`${P}/999`)).body).toEqual({ message: "404 Pipeline Schedule Not Found" });
  });

  it("lets only its owner change it; a maintainer takes ownership first; play runs it as its owner", async () => {
    const s = (await f.api(P, post({ description: "bob's", ref: "main", cron: "0 1 * * *" }, BOB))).body;
    const at = `${P}/${s.id}`;
    expect((await f.api(at, put({ cron: "0 2 * * *" }))).status).toBe(403);
    expect((await f.api(`${at}/variables`, post({ key: "A", value: "1" }))).status).toBe(403);
    // taking ownership is for maintainers, even of one's own schedule
    expect((await f.api(`${at}/take_ownership`, post({}, BOB))).status).toBe(403);
    const taken = await f.api(`${at}/take_ownership`, send("POST", undefined, ROOT));
    expect(taken.body.owner.username).toBe("root");
    expect((await f.api(at, send("PUT", { active: false }, ROOT))).body.active).toBe(false);
    expect((await f.api(`${P}?scope=inactive`)).body.map((x: { id: number }) => x.id)).toEqual([s.id]);
    expect((await f.api(`${P}?scope=active`)).body).toEqual([]);
    expect((await f.api(`${at}/play`, post({}))).body).toEqual({ message: "201 Created" });
    const runs = (await f.api(`${at}/pipelines`)).body;
    expect(runs).toEqual([expect.objectContaining({ source: "schedule", ref: "main" })]);
    // a developer reads the schedule but not its variables
    const detail = (await f.api(at, { headers: BOB })).body;
    expect(detail.last_pipeline.id).toBe(runs[0].id);
    expect(detail.variables).toBeUndefined();
    expect((await f.api(at, { ...del, headers: BOB })).status).toBe(403);
    expect((await f.api(at, del)).status).toBe(204);
  });

  it("keeps variables by key: unique, well formed, deleted with 202 and the variable", async () => {
    const s = (await f.api(P, post({ description: "v", ref: "main", cron: "0 1 * * *" }))).body;
    const v = `${P}/${s.id}/variables`;
    expect((await f.api(v, post({ key: "TARGET", value: "eu" }))).status).toBe(201);
    expect((await f.api(v, post({ key: "TARGET", value: "us" }))).body).toEqual({
      message: { key: ["(TARGET) has already been taken"] },
    });
    expect((await f.api(v, post({ key: "BAD-KEY", value: "x" }))).status).toBe(400);
    expect((await f.api(`${v}/NOPE`)).body).toEqual({ message: "404 Pipeline Schedule Variable Not Found" });
    expect((await f.api(`${v}/TARGET`, put({ variable_type: "file" }))).body).toMatchObject({
      key: "TARGET",
      value: "eu",
      variable_type: "file",
    });
    const gone = await f.api(`${v}/TARGET`, del);
    expect(gone.status).toBe(202);
    expect(gone.body.key).toBe("TARGET");
    expect((await f.api(`${v}/TARGET`)).status).toBe(404);
  });
});

describe("cron", () => {
  it.each([
    ["0 1 * * *", "2026-03-04T05:06:00Z", "2026-03-05T01:00:00.000Z"],
    ["*/20 * * * *", "2026-03-04T05:06:00Z", "2026-03-04T05:20:00.000Z"],
    ["0 9 * * 1-5", "2026-03-07T10:00:00Z", "2026-03-09T09:00:00.000Z"],
    // both day fields restricted: either matches
    ["0 0 13 * 5", "2026-03-01T00:00:00Z", "2026-03-06T00:00:00.000Z"],
    ["0 0 29 2 *", "2026-03-01T00:00:00Z", null],
  ])("%s after %s is %s", (cron, from, next) => {
    expect(nextRun(parseCron(cron)!, "UTC", Date.parse(from))).toBe(next);
  });
});
