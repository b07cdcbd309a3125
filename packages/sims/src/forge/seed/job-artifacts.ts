import { check, projectAt, projectPath, type RecordKind } from "./records.js";

/**
 * `/_sim/seed` key `artifacts`: a job's archive ({project, job (name; the newest such job, on
 * `ref` if given, or the job `job_id` as dumped), ref?, files: {path: text}}).
 */
export const jobArtifacts: RecordKind = {
  key: "artifacts",
  seed(state, rows) {
    for (const a of rows) {
      const p = projectAt(state, a, "artifacts[]");
      const job =
        typeof a.job_id === "number"
          ? state.jobs.find((j) => j.id === a.job_id && j.project_id === p.id)
          : state.jobs
              .filter(
                (j) => j.project_id === p.id && j.name === a.job && (a.ref === undefined || j.ref === a.ref),
              )
              .sort((x, y) => y.id - x.id)[0];
      check(job, `artifacts[]: no job ${JSON.stringify(a.job)} in ${JSON.stringify(a.project)}`);
      check(a.files && typeof a.files === "object", "artifacts[].files must be an object of path → text");
      state.artifacts[job.id] = Object.fromEntries(
        Object.entries(a.files as object).map(([k, v]) => [k, String(v)]),
      );
    }
  },
  dump: (state) =>
    Object.entries(state.artifacts).flatMap(([id, files]) => {
      const job = state.jobs.find((j) => j.id === Number(id));
      return job
        ? [
            {
              project: projectPath(state, job.project_id),
              job: job.name,
              job_id: job.id,
              ref: job.ref,
              files,
            },
          ]
        : [];
    }),
  reset(state) {
    state.artifacts = {};
  },
};
