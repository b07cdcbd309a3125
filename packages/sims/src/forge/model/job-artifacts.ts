import type { ForgeState } from "./state.js";

/**
 * The files in a job's artifacts archive: seeded ones, or for a successful job a summary file
 * `<job name>/summary.txt` (so every finished pipeline has something to download).
 */
export function jobArtifactFiles(
  state: Pick<ForgeState, "artifacts">,
  job: { id: number; name: string; status: string; sha: string },
): Record<string, string> {
  const seeded = state.artifacts[job.id];
  if (seeded) return seeded;
  if (job.status !== "success") return {};
  return { [`${job.name}/summary.txt`]: `job ${job.name} (${job.id}) at ${job.sha}: success\n` };
}

/** The `artifacts` entries of a job: the zip archive and the job log, as GitLab lists them. */
export function jobArtifactsJson(
  state: Pick<ForgeState, "artifacts">,
  job: { id: number; name: string; status: string; sha: string },
  traceSize: number,
) {
  const files = jobArtifactFiles(state, job);
  const size = Object.entries(files).reduce((n, [p, c]) => n + p.length + Buffer.byteLength(c) + 100, 22);
  const out: Array<{ file_type: string; size: number; filename: string; file_format: string | null }> = [];
  if (Object.keys(files).length)
    out.push({ file_type: "archive", size, filename: "artifacts.zip", file_format: "zip" });
  out.push({ file_type: "trace", size: traceSize, filename: "job.log", file_format: null });
  return { artifacts: out, archive: Object.keys(files).length ? { filename: "artifacts.zip", size } : null };
}
