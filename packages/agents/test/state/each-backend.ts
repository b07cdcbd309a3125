// One describe block per state backend, for tests that must hold on both: the file beside
// agents.yaml, and a throwaway PostgreSQL (described only where the machine has it, as every
// PostgreSQL test is).
import { afterAll, beforeAll, describe } from "vitest";
import { describeWith } from "../../../../scripts/test-services.js";
import { type PgServer, testPostgres } from "./pg-server.js";

export type StateBackendKind = "file" | "postgres";

/**
 * `body` runs inside each backend's describe block with the environment that selects the backend:
 * empty for the file, AGENTS_STATE_URL once the block's PostgreSQL is up (filled in beforeAll, so
 * read it inside tests, not while describing).
 */
export function describeEachStateBackend(
  title: (backend: StateBackendKind) => string,
  body: (state: Record<string, string>, backend: StateBackendKind) => void,
): void {
  for (const backend of ["file", "postgres"] as const) {
    (backend === "postgres" ? describeWith("postgresql") : describe)(title(backend), () => {
      let server: PgServer | undefined;
      const state: Record<string, string> = {};
      beforeAll(async () => {
        if (backend === "postgres") {
          server = await testPostgres();
          state.AGENTS_STATE_URL = server.url;
        }
      }, 60_000);
      afterAll(async () => {
        await server?.stop();
      });
      body(state, backend);
    });
  }
}
