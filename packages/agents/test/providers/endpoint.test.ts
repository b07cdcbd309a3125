// Keys on the wire: a provider endpoint that is plain http:// to a host that is not loopback is
// refused, whether it comes from the provider block (`base_url`/`gateway`, validate: AGENTS1036)
// or from AGENTS_BASE_URL_<PROVIDER> (the engine, in the environment or in `.env`), unless the
// provider block sets `allow_insecure_http: true`. One row per case; every row runs both paths.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningSim, startSim } from "@agents/sims";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadProject, plan, refreshErrors } from "../../src/index.js";
import { baseUrlsFromEnv } from "../../src/providers/endpoint.js";
import { errorsOf, load, render } from "../config/helpers.js";

interface Row {
  case: string;
  url: string;
  /** `allow_insecure_http: true` in the provider block. */
  optIn?: boolean;
  refused: boolean;
}

const ROWS: Row[] = [
  { case: "https to a remote host", url: "https://api.example.com/v1", refused: false },
  { case: "http to 127.0.0.1", url: "http://127.0.0.1:8080/v1", refused: false },
  { case: "http to 127.8.9.10 (all of 127.0.0.0/8)", url: "http://127.8.9.10:8080/v1", refused: false },
  { case: "http to ::1", url: "http://[::1]:8080/v1", refused: false },
  { case: "http to localhost", url: "http://localhost:8080/v1", refused: false },
  { case: "http to LOCALHOST (host names ignore case)", url: "http://LOCALHOST:8080/v1", refused: false },
  { case: "http to a remote host", url: "http://api.example.com/v1", refused: true },
  { case: "http to a private address (not loopback)", url: "http://10.0.0.5/v1", refused: true },
  {
    case: "http to a name that only starts with localhost",
    url: "http://localhost.example.com/v1",
    refused: true,
  },
  { case: "http to 128.0.0.1", url: "http://128.0.0.1/v1", refused: true },
  { case: "http to a remote host, opted in", url: "http://api.example.com/v1", optIn: true, refused: false },
];

function block(row: Row, endpoint?: string): Record<string, unknown> {
  return {
    api_key: "k",
    ...(endpoint ? { base_url: endpoint } : {}),
    ...(row.optIn ? { allow_insecure_http: true } : {}),
  };
}

describe("a provider block's base_url (validate)", () => {
  it.each(ROWS.map((row) => [row.case, row] as const))("%s", (_case, row) => {
    const text = [
      'version: "1"',
      "providers:",
      "  provider_c:",
      "    api_key: k",
      `    base_url: ${row.url}`,
      ...(row.optIn ? ["    allow_insecure_http: true"] : []),
    ].join("\n");
    const result = load(text);
    const hit = result.diagnostics.find((d) => d.code === "AGENTS1036");
    if (!row.refused) {
      expect(errorsOf(result), render(result)).toEqual([]);
      return;
    }
    expect(hit, render(result)).toMatchObject({ severity: "error", line: 5, col: 15 });
    expect(hit!.message).toContain("providers.provider_c.base_url is plain http://");
    expect(hit!.message).toContain("clear text");
    expect(hit!.hint).toMatch(/https:\/\/.*allow_insecure_http: true/);
  });

  it("checks provider_b's gateway too", () => {
    const result = load(
      'version: "1"\nproviders:\n  provider_b:\n    api_key: k\n    gateway: http://gw.example.com',
    );
    expect(result.diagnostics.find((d) => d.code === "AGENTS1036")).toMatchObject({ line: 5, col: 14 });
  });
});

describe("AGENTS_BASE_URL_<PROVIDER> (the engine)", () => {
  it.each(ROWS.map((row) => [row.case, row] as const))("%s", (_case, row) => {
    const read = () => baseUrlsFromEnv({ AGENTS_BASE_URL_PROVIDER_C: row.url }, { provider_c: block(row) });
    if (!row.refused) {
      expect(read()).toEqual({ provider_c: row.url });
      return;
    }
    expect(read).toThrow(/^AGENTS_BASE_URL_PROVIDER_C is plain http:\/\/ to .*clear text/);
    expect(read).toThrow(
      /use an https:\/\/ URL, or set `allow_insecure_http: true`.*\(providers\.provider_c\)/s,
    );
  });

  it("leaves a variable for a provider the project does not declare alone", () => {
    expect(baseUrlsFromEnv({ AGENTS_BASE_URL_PROVIDER_D: "http://api.example.com" }, {})).toEqual({
      provider_d: "http://api.example.com",
    });
  });
});

describe("AGENTS_BASE_URL_<PROVIDER> written in .env", () => {
  let sim: RunningSim;
  beforeAll(async () => {
    sim = await startSim("provider_c", { quiet: true });
  });
  afterAll(async () => {
    await sim.close();
  });

  function projectWithDotenv(dotenv: string): string {
    const dir = mkdtempSync(join(tmpdir(), "agents-endpoint-"));
    writeFileSync(
      join(dir, "agents.yaml"),
      'version: "1"\nproviders:\n  provider_c:\n    api_key: sim-provider-c-key\nenvironments:\n  e:\n    config:\n      type: cloud\n',
    );
    writeFileSync(join(dir, ".env"), dotenv);
    return join(dir, "agents.yaml");
  }
  const http = { policy: { maxRetries: 0, timeoutMs: 3000 } };

  it("is used: the plan reads the simulator the variable names", async () => {
    const file = projectWithDotenv(`AGENTS_BASE_URL_PROVIDER_C=${sim.url}\n`);
    const project = await loadProject({ file, env: {} });
    const result = await plan({ project, env: {}, http });
    expect(refreshErrors(result)).toEqual([]);
    expect(result.actions.map((a) => `${a.action} ${a.address}`)).toEqual([
      'create provider_c.environments["e"]',
    ]);
    expect(sim.log.since().length).toBeGreaterThan(0);
  });

  it("is refused like the environment's when it is plain http:// to another host", async () => {
    const file = projectWithDotenv("AGENTS_BASE_URL_PROVIDER_C=http://api.example.com/v1\n");
    const project = await loadProject({ file, env: {} });
    await expect(plan({ project, env: {}, http })).rejects.toThrow(
      /AGENTS_BASE_URL_PROVIDER_C is plain http:\/\//,
    );
  });
});
