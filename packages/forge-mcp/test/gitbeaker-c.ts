import { expect } from "vitest";
import { done, has, type Row, row, W } from "./gitbeaker-rows.js";
import { tableSeedC } from "./tools/table-c.js";

/**
 * gitbeaker.test.ts rows for the endpoints of the pipeline schedule, pipeline trigger, environment
 * and deployment tools, on the records the tools table seeds for them (a stale environment, two
 * review apps, a blocked deployment of bob's).
 */

export const BEAKER_C_SEED = tableSeedC;

export const NOT_IN_GITBEAKER_C: Record<string, string> = {
  "GET /projects/:id/pipeline_schedules/:pipeline_schedule_id/variables/:key":
    "gitbeaker 43's PipelineScheduleVariables has no method for one variable (GitLab added the endpoint in 18.7)",
};

const S = "/projects/:id/pipeline_schedules/:pipeline_schedule_id";

export const beakerRowsC: Row[] = [
  // pipeline schedules
  row(
    "POST /projects/:id/pipeline_schedules",
    (gl) => gl.PipelineSchedules.create(W, "Beaker nightly", "main", "0 3 * * *", { cronTimezone: "UTC" }),
    (s, c) => {
      expect(s).toMatchObject({ cron: "0 3 * * *", active: true, owner: { username: "alice" } });
      c.schedule = s.id;
    },
  ),
  row(
    "GET /projects/:id/pipeline_schedules",
    (gl) => gl.PipelineSchedules.all(W),
    has("description", "Beaker nightly"),
  ),
  row(
    `PUT ${S}`,
    (gl, c) => gl.PipelineSchedules.edit(W, c.schedule, { cron: "0 4 * * *", active: false }),
    (s) => expect(s).toMatchObject({ cron: "0 4 * * *", active: false }),
  ),
  row(
    `POST ${S}/variables`,
    (gl, c) => gl.PipelineScheduleVariables.create(W, c.schedule, "BEAKER", "one"),
    (v) => expect(v).toMatchObject({ key: "BEAKER", value: "one", variable_type: "env_var" }),
  ),
  row(
    `PUT ${S}/variables/:key`,
    (gl, c) => gl.PipelineScheduleVariables.edit(W, c.schedule, "BEAKER", "two"),
    (v) => expect(v.value).toBe("two"),
  ),
  row(
    `POST ${S}/play`,
    (gl, c) => gl.PipelineSchedules.run(W, c.schedule),
    (m) => expect(m.message).toBe("201 Created"),
  ),
  row(
    `GET ${S}/pipelines`,
    (gl, c) => gl.PipelineSchedules.allTriggeredPipelines(W, c.schedule),
    has("source", "schedule"),
  ),
  row(
    `GET ${S}`,
    (gl, c) => gl.PipelineSchedules.show(W, c.schedule),
    (s) => {
      expect(s.last_pipeline.status).toBeDefined();
      expect(s.variables).toEqual([expect.objectContaining({ key: "BEAKER", value: "two" })]);
    },
  ),
  row(
    `POST ${S}/take_ownership`,
    (gl, c) => gl.PipelineSchedules.takeOwnership(W, c.schedule),
    (s) => expect(s.owner.username).toBe("alice"),
  ),
  row(
    `DELETE ${S}/variables/:key`,
    (gl, c) => gl.PipelineScheduleVariables.remove(W, c.schedule, "BEAKER"),
    done,
  ),
  row(`DELETE ${S}`, (gl, c) => gl.PipelineSchedules.remove(W, c.schedule), done),
  // pipeline triggers
  row(
    "POST /projects/:id/triggers",
    (gl) => gl.PipelineTriggerTokens.create(W, "beaker bot"),
    (t, c) => {
      expect(t.token).toMatch(/^glptt-/);
      c.trigger = t.id;
      c.triggerToken = t.token;
    },
  ),
  row(
    "GET /projects/:id/triggers",
    (gl) => gl.PipelineTriggerTokens.all(W),
    has("description", "beaker bot"),
  ),
  row(
    "GET /projects/:id/triggers/:trigger_id",
    (gl, c) => gl.PipelineTriggerTokens.show(W, c.trigger),
    // the owner reads the whole token
    (t, c) => expect(t.token).toBe(c.triggerToken),
  ),
  row(
    "PUT /projects/:id/triggers/:trigger_id",
    (gl, c) => gl.PipelineTriggerTokens.edit(W, c.trigger, { description: "beaker release bot" }),
    (t) => expect(t.description).toBe("beaker release bot"),
  ),
  row(
    "POST /projects/:id/trigger/pipeline",
    (gl, c) => gl.PipelineTriggerTokens.trigger(W, "main", c.triggerToken),
    (p) => expect(p).toMatchObject({ ref: "main", source: "trigger" }),
  ),
  row(
    "DELETE /projects/:id/triggers/:trigger_id",
    (gl, c) => gl.PipelineTriggerTokens.remove(W, c.trigger),
    done,
  ),
  // environments
  row(
    "PUT /projects/:id/environments/:environment_id",
    (gl) => gl.Environments.edit(W, 9001, { externalUrl: "https://eu.example.org", tier: "production" }),
    (e) => expect(e).toMatchObject({ external_url: "https://eu.example.org", tier: "production" }),
  ),
  row(
    "POST /projects/:id/environments/stop_stale",
    (gl) => gl.Environments.stopStale(W, "2021-01-01T00:00:00Z"),
    (m) => expect(m.message).toMatch(/stale environments/),
  ),
  row(
    "POST /projects/:id/environments/:environment_id/stop",
    (gl) => gl.Environments.stop(W, 9003),
    (e) => expect(e.state).toBe("stopped"),
  ),
  row(
    "DELETE /projects/:id/environments/review_apps",
    (gl) => gl.Environments.removeReviewApps(W, { dryRun: true }),
    (x) => expect(x.scheduled_entries).toEqual([expect.objectContaining({ name: "review/old-login" })]),
  ),
  row("DELETE /projects/:id/environments/:environment_id", (gl) => gl.Environments.remove(W, 9003), done),
  // deployments
  row(
    "POST /projects/:id/deployments",
    (gl) => gl.Deployments.create(W, "beaker", "main", "main", false, { status: "running" } as never),
    (d, c) => {
      expect(d.environment.name).toBe("beaker");
      c.beakerDeployment = d.id;
    },
  ),
  row(
    "PUT /projects/:id/deployments/:deployment_id",
    (gl, c) => gl.Deployments.edit(W, c.beakerDeployment, "failed"),
    (d) => expect(d.status).toBe("failed"),
  ),
  row(
    "GET /projects/:id/deployments/:deployment_id/merge_requests",
    (gl, c) => gl.Deployments.allMergeRequests(W, c.beakerDeployment),
    (x) => expect(Array.isArray(x)).toBe(true),
  ),
  row(
    "DELETE /projects/:id/deployments/:deployment_id",
    (gl, c) => gl.Deployments.remove(W, c.beakerDeployment),
    done,
  ),
  row(
    "POST /projects/:id/deployments/:deployment_id/approval",
    (gl) => gl.Deployments.setApproval(W, 9004, "approved", { comment: "fine by me" }),
    (a) =>
      expect(a).toMatchObject({ status: "approved", comment: "fine by me", user: { username: "alice" } }),
  ),
];
