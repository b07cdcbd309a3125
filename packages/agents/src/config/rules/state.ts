import type { RuleContext } from "./context.js";

const FILE_ONLY = ["path"] as const;
const POSTGRES_ONLY = ["url", "workspace", "schema"] as const;

/** The `state` block: each backend's fields, and a connection URL that never holds a literal password. */
export function checkState(ctx: RuleContext): void {
  const state = ctx.config.state;
  if (!state) return;
  const backend = state.backend ?? "file";
  const foreign = backend === "file" ? POSTGRES_ONLY : FILE_ONLY;
  for (const field of foreign) {
    if (state[field] === undefined) continue;
    ctx.report(
      "AGENTS1061",
      `state.${field} belongs to the ${backend === "file" ? "postgres" : "file"} backend, but state.backend is ${backend}`,
      ["state", field],
      backend === "file" ? "add `backend: postgres`, or remove the line" : "remove the line",
    );
  }
  if (backend !== "postgres") return;
  if (state.workspace === undefined)
    ctx.warn(
      "AGENTS1064",
      "state.workspace is not set: it defaults to AGENTS_PROJECT, else the name of this folder, so a clone of the project in a folder of another name (another laptop, a CI checkout) reads another, empty state and would create everything again",
      ["state"],
      "add `workspace: <name>` to the state block (one name the whole team commits)",
    );
  if (state.url === undefined) {
    ctx.report(
      "AGENTS1060",
      "state.backend is postgres but state.url is missing",
      ["state"],
      "add `url: ${AGENTS_STATE_URL}` and put AGENTS_STATE_URL=postgres://user:password@host:5432/db in .env or the environment",
    );
    return;
  }
  let parsed: URL | undefined;
  try {
    parsed = new URL(state.url);
  } catch {}
  if (!parsed || !["postgres:", "postgresql:"].includes(parsed.protocol)) {
    // Never echo the value: it may hold a password.
    ctx.report(
      "AGENTS1063",
      "state.url is not a postgres:// or postgresql:// URL",
      ["state", "url"],
      "use postgres://user:password@host:5432/database (add ?sslmode=require for TLS)",
    );
    return;
  }
  const raw = ctx.source.written(["state", "url"]);
  if (parsed.password && raw !== undefined && !raw.includes("${")) {
    ctx.report(
      "AGENTS1062",
      "state.url holds a password written inline; secrets are never written in agents.yaml",
      ["state", "url"],
      "write `url: ${AGENTS_STATE_URL}` and put the URL in .env (git-ignored) or the environment",
    );
  }
}
