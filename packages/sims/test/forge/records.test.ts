import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SimClock } from "../../src/core/clock.js";
import { IdGenerator, Prng } from "../../src/core/prng.js";
import { definition } from "../../src/forge/index.js";
import { emptyRecords, type ForgeState } from "../../src/forge/model/state.js";
import { seedRecords } from "../../src/forge/seed/records.js";
import { RECORDS } from "../../src/forge/seed/registry.js";
import type { RunningSim } from "../../src/index.js";
import { forge, startForge } from "./helpers.js";

/**
 * The record registry's promise (docs/sims.md, "Seeding and state"): `GET /_sim/state` dumps every
 * object and `POST /_sim/seed {"replace": true, …dump}` into a fresh simulator rebuilds the REST
 * world. A world with records of every kind (the default dataset, a seed of every seedable key and
 * records only the API makes) is dumped and seeded into a second simulator; then every GET
 * collection route the forge registers, with its path parameters filled from the world, must answer
 * both the same (status and body), for an administrator and for a member.
 */

const ROOT = "sim-forge-pat-root";
const ALICE = "sim-forge-pat";
const P = "/projects/1";

const SEEDED_RECORDS = {
  tokens: [{ user: "bob", application: "sim-forge-app", scopes: ["read_api"] }],
  personal_access_tokens: [{ token: "sim-forge-pat-extra", user: "carol", name: "extra" }],
  labels: [
    { project: "acme/widgets", name: "needs-design", color: "#0033cc", priority: 1 },
    { project: "labs/experiments", name: "spike", description: "time-boxed" },
  ],
  milestones: [
    { project: "acme/widgets", title: "1.5", start_date: "2026-02-01", due_date: "2026-03-01" },
    { project: "acme/widgets", title: "1.3", state: "closed", description: "shipped" },
  ],
  releases: [
    { project: "acme/widgets", tag_name: "v1.4.0", name: "Widgets 1.4", milestones: ["1.5"], author: "bob" },
  ],
  wiki: [
    { project: "acme/widgets", title: "Release checklist", content: "tag, then publish" },
    { project: "labs/experiments", title: "Ideas", content: "= Ideas", format: "asciidoc" },
  ],
  artifacts: [{ project: "acme/widgets", job: "build", files: { "dist/widget.js": "export {};" } }],
  group_wiki: [{ group: "acme", title: "Handbook", content: "be kind" }],
  iterations: [{ group: "acme", title: "Sprint 1", start_date: "2026-01-05", due_date: "2026-01-18" }],
  hooks: [
    {
      project: "acme/widgets",
      url: "https://hooks.example.test/p",
      events: { issues_events: true },
      deliveries: [{ trigger: "issue_hooks", response_status: 500 }],
    },
    { group: "acme", url: "https://hooks.example.test/g", deliveries: [{ trigger: "push_hooks" }] },
  ],
  release_links: [
    { project: "acme/widgets", tag_name: "v1.4.0", name: "bin", url: "https://dl.example.test/bin" },
  ],
  tag_signatures: [{ project: "acme/widgets", tag_name: "v1.4.0", signature_type: "SSH" }],
  vulnerabilities: [{ project: "acme/widgets", title: "XSS", severity: "high" }],
  custom_fields: [{ group: "acme", name: "Team", field_type: "SINGLE_SELECT", options: ["red", "blue"] }],
  dependency_proxy: [{ group: "acme", blobs: [{ file_name: "sha256:abc", size: 12 }] }],
};

/** Records only the API makes (and changes to seeded ones), each through its own endpoint. */
const API_WRITES: [method: string, path: string, body?: Record<string, unknown>][] = [
  ["POST", `${P}/labels`, { name: "api-made", color: "#00aa00" }],
  ["PUT", `${P}/issues/1`, { milestone_id: "MILESTONE", labels: "bug,api-made" }],
  ["POST", `${P}/issues`, { title: "Made through the API", description: "new" }],
  ["POST", `${P}/issues/4/notes`, { body: "a note made through the API" }],
  ["POST", `${P}/issues/1/discussions`, { body: "a thread" }],
  ["POST", `${P}/issues/1/links`, { target_project_id: 1, target_issue_iid: 2, link_type: "blocks" }],
  ["POST", `${P}/issues/1/award_emoji`, { name: "thumbsup" }],
  ["POST", `${P}/merge_requests/1/award_emoji`, { name: "rocket" }],
  ["POST", `${P}/merge_requests/1/draft_notes`, { note: "a draft" }],
  ["POST", "/groups/acme/milestones", { title: "Q3" }],
  ["PUT", `${P}/merge_requests/2`, { milestone_id: "MILESTONE" }],
  ["POST", `${P}/variables`, { key: "TOKEN", value: "s3cret-value", masked: true }],
  ["POST", "/groups/acme/variables", { key: "REGION", value: "eu" }],
  ["POST", `${P}/environments`, { name: "staging", external_url: "https://staging.example.test" }],
  [
    "POST",
    `${P}/deployments`,
    { environment: "staging", ref: "main", sha: "SHA", tag: false, status: "success" },
  ],
  ["POST", `${P}/protected_branches`, { name: "release/*", push_access_level: 40 }],
  [
    "POST",
    `${P}/statuses/SHA`,
    { state: "success", name: "external", target_url: "https://ci.example.test" },
  ],
  ["POST", `${P}/releases/v1.4.0/evidence`],
  ["POST", "/projects/4/fork", { namespace_path: "acme", path: "experiments-fork" }],
  ["POST", "/todos/mark_as_done"],
  ["POST", "/groups/acme/wikis", { title: "Onboarding", content: "read this" }],
  ["POST", `${P}/pipeline_schedules`, { description: "Yearly", ref: "main", cron: "0 4 1 1 *" }],
  ["POST", `${P}/pipeline_schedules/SCHEDULE/variables`, { key: "WHEN", value: "yearly" }],
  ["POST", `${P}/triggers`, { description: "deploy bot" }],
];

// Path parameters the route table uses, each filled with every value the world has for it.
async function paramValues(get: (path: string, token?: string) => Promise<any>) {
  const ids = async (path: string, field = "id") =>
    ((await get(path)).body as any[]).map((x) => String(x[field]));
  const projects = await ids("/projects?per_page=100");
  const groups = await ids("/groups?all_available=true&per_page=100");
  const sha = (await get(`${P}/repository/branches/main`)).body.commit.id as string;
  const jobs = await ids(`${P}/jobs?per_page=100`);
  return {
    "projects/id": projects,
    "groups/id": groups,
    "namespaces/id": groups,
    user_id: await ids("/users?per_page=100"),
    iid: ["1", "2", "4"],
    note_id: [
      ...(await ids(`${P}/issues/1/notes`)).slice(0, 1),
      ...(await ids(`${P}/merge_requests/1/notes`)).slice(0, 1),
    ],
    milestone_id: [...(await ids(`${P}/milestones`)), ...(await ids("/groups/acme/milestones"))],
    pipeline_id: await ids(`${P}/pipelines`),
    job_id: jobs,
    hook_id: [...(await ids(`${P}/hooks`)), ...(await ids("/groups/acme/hooks"))],
    pipeline_schedule_id: await ids(`${P}/pipeline_schedules`),
    deployment_id: await ids(`${P}/deployments`),
    sha: [sha],
    tag_name: ["v1.4.0"],
    file_path: ["README.md"],
    asset: ["bin"],
    artifact_path: ["dist/widget.js"],
  } as Record<string, string[]>;
}

/** Every GET route the forge registers that answers a collection (its path ends in a literal). */
function collectionRoutes(): string[] {
  const app = express();
  const clock = new SimClock();
  const ids = new IdGenerator(new Prng(1));
  const state = definition.createState({ ids, clock });
  definition.routes(app, { name: "forge", state, clock, ids, baseUrl: "", origin: "" });
  const out: string[] = [];
  const walk = (stack: any[]) => {
    for (const layer of stack) {
      if (layer.route?.methods?.get) out.push(String(layer.route.path));
      else if (layer.handle?.stack) walk(layer.handle.stack);
    }
  };
  walk((app as any).router.stack);
  return out.filter((p) => p.startsWith("/api/v4/") && !/\/:[a-z_]+$/.test(p)).map((p) => p.slice(7));
}

/** Each route with every combination of its parameters' values. */
function expand(route: string, values: Record<string, string[]>): string[] {
  const m = /([a-z_]+)\/[:*]([a-z_]+)/.exec(route);
  if (!m) return [route];
  // a parameter's values by its name, or by the collection it follows (`projects/:id`)
  const options = values[`${m[1]}/${m[2]}`] ?? values[m[2]!];
  if (!options) throw new Error(`no values for ${m[0]} in ${route}`);
  return options.flatMap((v) =>
    expand(
      `${route.slice(0, m.index)}${m[1]}/${encodeURIComponent(v)}${route.slice(m.index + m[0].length)}`,
      values,
    ),
  );
}

/** Reads answer as they come: a release asset's download is a redirect to a host that does not exist. */
function client(sim: RunningSim) {
  const f = forge(sim);
  const call = async (method: string, path: string, body?: unknown, token = ALICE) => {
    const r = await f.api(path, {
      method,
      token,
      redirect: "manual",
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: r.status, body: r.body };
  };
  return {
    call,
    get: (path: string, token?: string) => call("GET", path, undefined, token),
    control: f.control,
  };
}

describe("a dumped world seeded into a fresh simulator", () => {
  let first: RunningSim;
  let second: RunningSim;
  let dump: any;
  let redumped: any;
  let triggerToken = "";

  beforeAll(async () => {
    first = await startForge();
    second = await startForge();
    const a = client(first);
    expect((await a.control("POST", "/seed", SEEDED_RECORDS)).status).toBe(200);
    const sha = (await a.get(`${P}/repository/branches/main`)).body.commit.id as string;
    const milestone = String((await a.get(`${P}/milestones`)).body[0].id);
    let schedule = "";
    for (const [method, path, body] of API_WRITES) {
      const fill = (v: unknown) => (v === "SHA" ? sha : v === "MILESTONE" ? milestone : v);
      const concrete = path.replace("SHA", sha).replace("SCHEDULE", schedule);
      const b = body && Object.fromEntries(Object.entries(body).map(([k, v]) => [k, fill(v)]));
      const r = await a.call(method, concrete, b);
      expect(r.status, `${method} ${concrete}: ${JSON.stringify(r.body)}`).toBeLessThan(300);
      if (concrete.endsWith("/pipeline_schedules")) schedule = String(r.body.id);
      if (concrete.endsWith("/triggers")) triggerToken = r.body.token;
    }
    dump = (await a.control("GET", "/state")).body;
    const seeded = await client(second).control("POST", "/seed", { ...dump, replace: true });
    expect(seeded.status, JSON.stringify(seeded.body)).toBe(200);
    // before any request: reading a project's labels stores the ones its issues name
    redumped = (await client(second).control("GET", "/state")).body;
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
  });

  it("answers every collection route the same, to an administrator and to a member", async () => {
    const a = client(first);
    const b = client(second);
    const values = await paramValues(a.get);
    const routes = collectionRoutes();
    const paths = [...new Set(routes.flatMap((r) => expand(r, values)))];
    // The administrator reads everything; the member, the lists that depend on who asks (own
    // projects, issues, merge requests, to-dos, events), which are the routes without a parameter.
    const asMember = routes.filter((r) => !/[:*]/.test(r));
    // Each simulator names its own origin in URLs, and a token's `last_used_at` is the request's time.
    const seen = (sim: RunningSim, answer: unknown) =>
      JSON.stringify(answer)
        .replaceAll(sim.origin, "ORIGIN")
        .replace(/"last_used_at":"[^"]*"/g, '"last_used_at":"NOW"');
    const differ: string[] = [];
    let lists = 0;
    for (const [token, list] of [
      [ROOT, paths],
      [ALICE, asMember],
    ] as const) {
      for (const path of list) {
        const url = `${path}${path.includes("?") ? "&" : "?"}per_page=100`;
        const [x, y] = await Promise.all([a.get(url, token), b.get(url, token)]);
        if (Array.isArray(x.body) && x.body.length > 0) lists += 1;
        if (seen(first, x) !== seen(second, y)) differ.push(`${token === ROOT ? "root" : "alice"} ${path}`);
      }
    }
    expect(differ).toEqual([]);
    expect(paths.length).toBeGreaterThan(200);
    // the comparison is over filled lists, not over two empty worlds
    expect(lists).toBeGreaterThan(100);
  });

  it("dumps the seeded world as it was dumped", () => {
    expect(redumped).toEqual(dump);
  });

  it("keeps the plaintext of the tokens it holds, and no redacted value authenticates", async () => {
    const b = client(second);
    expect((await b.get("/user", ROOT)).body.username).toBe("root");
    const extra = dump.personal_access_tokens.find((p: any) => p.name === "extra");
    expect(extra.token).toBe("sim-…[redacted]");
    // a value never given out (the dumped one goes in the query: "…" is no header character)
    const asQuery = async (param: string, value: string) =>
      (await fetch(`${second.url}/user?${param}=${encodeURIComponent(value)}`)).status;
    expect(await asQuery("private_token", extra.token)).toBe(401);
    expect(await asQuery("private_token", "sim-forge-pat-extra")).toBe(401);
    expect(await asQuery("access_token", dump.tokens[0].token)).toBe(401);
    expect(await asQuery("private_token", "sim-forge-pat-root")).toBe(200);
    // a pipeline trigger token is dumped redacted; neither value runs a pipeline in the new world
    const trigger = dump.pipeline_triggers[0];
    expect(trigger.token).toBe("glpt…[redacted]");
    for (const token of [trigger.token, triggerToken])
      expect((await b.call("POST", `${P}/trigger/pipeline`, { token, ref: "main" })).status).toBe(404);
    expect(
      (await client(first).call("POST", `${P}/trigger/pipeline`, { token: triggerToken, ref: "main" }))
        .status,
    ).toBe(201);
  });
});

describe("the record registry", () => {
  it("holds every record collection of the state: replace: true empties each one", () => {
    const state = definition.createState({ ids: new IdGenerator(new Prng(1)), clock: new SimClock() });
    const collections = Object.keys(emptyRecords()) as (keyof ReturnType<typeof emptyRecords>)[];
    for (const key of collections) {
      const c = state[key] as unknown;
      if (Array.isArray(c)) c.push({ id: 1 });
      else (c as Record<number, unknown>)[1] = 1;
    }
    seedRecords(RECORDS, state, { replace: true });
    const left = [
      ...collections,
      "groups",
      "projects",
      "issues",
      "mergeRequests",
      "pipelines",
      "jobs",
    ].filter((key) => Object.keys(state[key as keyof ForgeState] as object).length > 0);
    expect(left).toEqual([]);
  });

  it("gives each kind its own key", () => {
    const keys = RECORDS.map((k) => k.key);
    expect(keys.filter((k, i) => keys.indexOf(k) !== i)).toEqual([]);
  });
});
