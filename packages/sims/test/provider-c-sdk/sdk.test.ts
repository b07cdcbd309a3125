import Anthropic, { AuthenticationError, ConflictError, NotFoundError, toFile } from "@anthropic-ai/sdk";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createSim, type RunningSim } from "../../src/index.js";
import { definition } from "../../src/provider-c/index.js";
import {
  agentKeys,
  agentMessageEventKeys,
  agentRefKeys,
  cloudConfigKeys,
  credentialKeys,
  cronScheduleKeys,
  deletedKeys,
  deploymentKeys,
  deploymentRunKeys,
  environmentKeys,
  envVarAuthKeys,
  expectSdkShape,
  fileKeys,
  fileResourceKeys,
  limitedNetworkKeys,
  mcpServerKeys,
  mcpToolsetKeys,
  memoryKeys,
  memoryPrefixKeys,
  memoryStoreKeys,
  memoryVersionKeys,
  modelConfigKeys,
  packagesKeys,
  sessionAgentKeys,
  sessionKeys,
  skillKeys,
  skillRefKeys,
  skillVersionKeys,
  staticBearerAuthKeys,
  statusIdleEventKeys,
  statusRunningEventKeys,
  threadAgentKeys,
  threadKeys,
  toolsetKeys,
  userMessageEventKeys,
  vaultKeys,
} from "./sdk-shapes.js";

/**
 * The provider_c simulator driven ONLY through the provider's official TypeScript SDK
 * (`@anthropic-ai/sdk` 1.12.0) with its defaults: its auth header, its `anthropic-version`, the beta
 * headers each resource sends, its pagers and its error classes. Nothing here speaks raw HTTP; a
 * request the simulator refuses or a response the SDK's types do not describe fails a test.
 */
let sim: RunningSim;
let client: Anthropic;
const KEY = "sim-provider-c-key";
/**
 * For a call whose 409 is the point: the SDK retries a 409 twice with back-off (about 1.5 s)
 * before it throws, and the simulator answers each retry the same.
 */
const ONE_TRY = { maxRetries: 0 };

beforeAll(async () => {
  sim = await createSim(definition, { quiet: true });
  // The SDK's paths begin with /v1; the simulator's API lives under it.
  client = new Anthropic({ apiKey: KEY, baseURL: sim.url.replace(/\/v1$/, "") });
});
afterAll(() => sim.close());
beforeEach(() => sim.reset());

const newEnvironment = () =>
  client.beta.environments.create({
    name: "sdk-env",
    config: { type: "cloud", networking: { type: "unrestricted" } },
  });
const newAgent = (name = "sdk-agent") => client.beta.agents.create({ name, model: "claude-sonnet-4-5" });

describe("provider_c with the official SDK: transport", () => {
  it("sends Authorization: Bearer, anthropic-version 2026-10-21 and the resource's beta, and is served", async () => {
    await client.beta.agents.list();
    const log = (await (await fetch(`${sim.origin}/_sim/log`)).json()) as {
      entries: { status: number; headers: Record<string, string> }[];
    };
    const entry = log.entries.at(-1);
    if (!entry) throw new Error("the request log is empty");
    expect(entry.status).toBe(200);
    expect(entry.headers["anthropic-version"]).toBe("2026-10-21");
    expect(entry.headers["anthropic-beta"]).toBe("managed-agents-2026-04-01");
    expect(entry.headers.authorization).toBeDefined();
    expect(entry.headers["x-api-key"]).toBeUndefined();
  });

  it("a bad key → the SDK's AuthenticationError", async () => {
    const bad = new Anthropic({ apiKey: "not-a-key", baseURL: sim.url.replace(/\/v1$/, "") });
    await expect(bad.beta.agents.list()).rejects.toBeInstanceOf(AuthenticationError);
    await expect(bad.beta.memoryStores.list()).rejects.toBeInstanceOf(AuthenticationError);
    await expect(bad.beta.files.list()).rejects.toBeInstanceOf(AuthenticationError);
  });

  it.each([
    ["agent", () => client.beta.agents.retrieve("agent_missing")],
    ["environment", () => client.beta.environments.retrieve("env_missing")],
    ["vault", () => client.beta.vaults.retrieve("vlt_missing")],
    ["memory store", () => client.beta.memoryStores.retrieve("memstore_missing")],
    ["session", () => client.beta.sessions.retrieve("sesn_missing")],
    ["skill", () => client.beta.skills.retrieve("skill_missing")],
    ["file", () => client.beta.files.retrieveMetadata("file_missing")],
    ["deployment", () => client.beta.deployments.retrieve("depl_missing")],
    ["deployment run", () => client.beta.deploymentRuns.retrieve("drun_missing")],
  ])("an unknown %s id → the SDK's NotFoundError", async (_kind, call) => {
    await expect(call()).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe("provider_c with the official SDK: environments", () => {
  it("create, retrieve, update, list, archive, delete", async () => {
    const env = await client.beta.environments.create({
      name: "sdk-env",
      description: "made by the SDK",
      metadata: { team: "a" },
      config: {
        type: "cloud",
        networking: { type: "limited", allowed_hosts: ["example.com"] },
        packages: { pip: ["requests"] },
      },
    });
    expectSdkShape(env, environmentKeys, "environment");
    expectSdkShape(env.config, cloudConfigKeys, "cloud");
    if (env.config.type !== "cloud") throw new Error("not a cloud config");
    expectSdkShape(env.config.networking, limitedNetworkKeys, "limited");
    expectSdkShape(env.config.packages, packagesKeys);
    expect((await client.beta.environments.retrieve(env.id)).name).toBe("sdk-env");
    const updated = await client.beta.environments.update(env.id, { description: "changed" });
    expect(updated.description).toBe("changed");
    const listed = await client.beta.environments.list();
    expect(listed.data.map((e) => e.id)).toEqual([env.id]);
    const archived = await client.beta.environments.archive(env.id);
    expect(archived.archived_at).toEqual(expect.any(String));
    const deleted = await client.beta.environments.delete(env.id);
    expectSdkShape(deleted, deletedKeys, "environment_deleted");
  });
});

describe("provider_c with the official SDK: agents", () => {
  it("creates 23 agents and the SDK's pager walks every page (limit 10 → 3 pages), each once", async () => {
    const created = new Set<string>();
    for (let i = 0; i < 23; i++) created.add((await newAgent(`agent-${i}`)).id);
    const seen: string[] = [];
    for await (const agent of client.beta.agents.list({ limit: 10 })) {
      expectSdkShape(agent, agentKeys, "agent");
      seen.push(agent.id);
    }
    expect(seen).toHaveLength(23);
    expect(new Set(seen)).toEqual(created);
    let page = await client.beta.agents.list({ limit: 10 });
    let pages = 1;
    while (page.hasNextPage()) {
      page = await page.getNextPage();
      pages++;
    }
    expect(pages).toBe(3);
    expect(page.data).toHaveLength(3);
  });

  it("retrieve, update with version, a stale version → the SDK's ConflictError, versions, archive", async () => {
    const agent = await client.beta.agents.create({
      name: "versioned",
      model: "claude-sonnet-4-5",
      system: "be brief",
      tools: [{ type: "agent_toolset_20260401" }],
      metadata: { owner: "sdk" },
    });
    expectSdkShape(agent, agentKeys, "agent");
    expectSdkShape(agent.model, modelConfigKeys);
    expectSdkShape(agent.tools[0], toolsetKeys, "agent_toolset_20260401");
    expect(agent.version).toBe(1);
    const got = await client.beta.agents.retrieve(agent.id);
    expect(got).toEqual(agent);
    const v2 = await client.beta.agents.update(agent.id, { version: 1, system: "be thorough" });
    expectSdkShape(v2, agentKeys, "agent");
    expect(v2.version).toBe(2);
    expect(v2.system).toBe("be thorough");
    await expect(
      client.beta.agents.update(agent.id, { version: 1, system: "stale" }, ONE_TRY),
    ).rejects.toBeInstanceOf(ConflictError);
    expect((await client.beta.agents.retrieve(agent.id, { version: 1 })).system).toBe("be brief");
    const versions: number[] = [];
    for await (const v of client.beta.agents.versions.list(agent.id)) versions.push(v.version);
    expect(versions.sort()).toEqual([1, 2]);
    const archived = await client.beta.agents.archive(agent.id);
    expectSdkShape(archived, agentKeys, "agent");
    expect(archived.archived_at).toEqual(expect.any(String));
  });
});

describe("provider_c with the official SDK: vaults and credentials", () => {
  it("vault CRUD and both credential kinds, secrets never read back", async () => {
    const vault = await client.beta.vaults.create({ display_name: "sdk-vault", metadata: { a: "1" } });
    expectSdkShape(vault, vaultKeys, "vault");
    const bearer = await client.beta.vaults.credentials.create(vault.id, {
      display_name: "bearer",
      auth: { type: "static_bearer", token: "secret-token", mcp_server_url: "https://mcp.example.com/mcp" },
    });
    expectSdkShape(bearer, credentialKeys);
    expectSdkShape(bearer.auth, staticBearerAuthKeys, "static_bearer");
    const envVar = await client.beta.vaults.credentials.create(vault.id, {
      auth: {
        type: "environment_variable",
        secret_name: "API_TOKEN",
        secret_value: "secret-value",
        networking: { type: "limited", allowed_hosts: ["api.example.com"] },
      },
    });
    expectSdkShape(envVar.auth, envVarAuthKeys, "environment_variable");
    expect(JSON.stringify([bearer, envVar])).not.toContain("secret-");
    const got = await client.beta.vaults.credentials.retrieve(bearer.id, { vault_id: vault.id });
    expect(got.id).toBe(bearer.id);
    const updated = await client.beta.vaults.credentials.update(bearer.id, {
      vault_id: vault.id,
      display_name: "renamed",
    });
    expect(updated.display_name).toBe("renamed");
    const creds: string[] = [];
    for await (const c of client.beta.vaults.credentials.list(vault.id)) creds.push(c.id);
    expect(creds.sort()).toEqual([bearer.id, envVar.id].sort());
    expectSdkShape(
      await client.beta.vaults.credentials.archive(envVar.id, { vault_id: vault.id }),
      credentialKeys,
    );
    expectSdkShape(
      await client.beta.vaults.credentials.delete(bearer.id, { vault_id: vault.id }),
      deletedKeys,
      "vault_credential_deleted",
    );
    expect((await client.beta.vaults.update(vault.id, { display_name: "v2" })).display_name).toBe("v2");
    expect((await client.beta.vaults.list()).data.map((v) => v.id)).toEqual([vault.id]);
    expectSdkShape(await client.beta.vaults.archive(vault.id), vaultKeys, "vault");
    expectSdkShape(await client.beta.vaults.delete(vault.id), deletedKeys, "vault_deleted");
  });
});

describe("provider_c with the official SDK: memory stores and memories", () => {
  it("store CRUD, memories with a sha256 precondition, prefixes, versions", async () => {
    const store = await client.beta.memoryStores.create({ name: "notes", description: "sdk" });
    expectSdkShape(store, memoryStoreKeys, "memory_store");
    const mem = await client.beta.memoryStores.memories.create(store.id, {
      path: "/a/b.md",
      content: "hello",
    });
    expectSdkShape(mem, memoryKeys, "memory");
    const got = await client.beta.memoryStores.memories.retrieve(mem.id, { memory_store_id: store.id });
    expect(got.content).toBe("hello");
    const updated = await client.beta.memoryStores.memories.update(mem.id, {
      memory_store_id: store.id,
      content: "hello again",
      precondition: { type: "content_sha256", content_sha256: mem.content_sha256 },
    });
    expect(updated.content_sha256).not.toBe(mem.content_sha256);
    await expect(
      client.beta.memoryStores.memories.update(
        mem.id,
        {
          memory_store_id: store.id,
          content: "lost update",
          precondition: { type: "content_sha256", content_sha256: mem.content_sha256 },
        },
        ONE_TRY,
      ),
    ).rejects.toBeInstanceOf(ConflictError);
    const items: unknown[] = [];
    for await (const item of client.beta.memoryStores.memories.list(store.id, { depth: 1 })) items.push(item);
    expect(items).toHaveLength(1);
    expectSdkShape(items[0], memoryPrefixKeys, "memory_prefix");
    const versions = [];
    for await (const v of client.beta.memoryStores.memoryVersions.list(store.id)) {
      expectSdkShape(v, memoryVersionKeys, "memory_version");
      versions.push(v);
    }
    expect(versions).toHaveLength(2);
    const first = versions.at(-1);
    if (!first) throw new Error("no version");
    expectSdkShape(
      await client.beta.memoryStores.memoryVersions.retrieve(first.id, { memory_store_id: store.id }),
      memoryVersionKeys,
      "memory_version",
    );
    expectSdkShape(
      await client.beta.memoryStores.memories.delete(mem.id, { memory_store_id: store.id }),
      deletedKeys,
      "memory_deleted",
    );
    expect((await client.beta.memoryStores.update(store.id, { description: "x" })).description).toBe("x");
    expect((await client.beta.memoryStores.list()).data).toHaveLength(1);
    expectSdkShape(await client.beta.memoryStores.archive(store.id), memoryStoreKeys, "memory_store");
    expectSdkShape(await client.beta.memoryStores.delete(store.id), deletedKeys, "memory_store_deleted");
  });
});

describe("provider_c with the official SDK: files and skills", () => {
  it("uploads, lists, reads and deletes a file", async () => {
    const file = await client.beta.files.upload({ file: await toFile(Buffer.from("# notes\n"), "notes.md") });
    expectSdkShape(file, fileKeys, "file");
    expect(file.filename).toBe("notes.md");
    expectSdkShape(await client.beta.files.retrieveMetadata(file.id), fileKeys, "file");
    expect((await client.beta.files.list()).data.map((f) => f.id)).toEqual([file.id]);
    expectSdkShape(await client.beta.files.delete(file.id), { id: true }, "file_deleted");
  });

  it("creates a skill from files[], adds a version, lists, downloads and deletes", async () => {
    const skillMd = (description: string) =>
      toFile(
        Buffer.from(`---\nname: sdk-skill\ndescription: ${description}\n---\nDo it.\n`),
        "sdk-skill/SKILL.md",
      );
    const skill = await client.beta.skills.create({
      files: [await skillMd("one")],
      display_name: "SDK skill",
    });
    expectSdkShape(skill, skillKeys, "skill");
    const v2 = await client.beta.skills.versions.create(skill.id, { files: [await skillMd("two")] });
    expectSdkShape(v2, skillVersionKeys, "skill_version");
    const versions = [];
    for await (const v of client.beta.skills.versions.list(skill.id)) versions.push(v.id);
    expect(versions).toHaveLength(2);
    const got = await client.beta.skills.versions.retrieve(v2.id, { skill_id: skill.id });
    expect(got.description).toBe("two");
    const zip = await client.beta.skills.versions.download(v2.id, { skill_id: skill.id });
    expect(zip.status).toBe(200);
    const ids: string[] = [];
    for await (const s of client.beta.skills.list()) ids.push(s.id);
    expect(ids).toContain(skill.id);
    for (const v of versions) {
      expectSdkShape(
        await client.beta.skills.versions.delete(v, { skill_id: skill.id }),
        deletedKeys,
        "skill_version_deleted",
      );
    }
    expectSdkShape(await client.beta.skills.delete(skill.id), deletedKeys, "skill_deleted");
  });
});

describe("provider_c with the official SDK: sessions", () => {
  it("create with a file resource, send a message, list events, update, archive, delete", async () => {
    const env = await newEnvironment();
    const agent = await newAgent();
    const file = await client.beta.files.upload({ file: await toFile(Buffer.from("data"), "data.txt") });
    const session = await client.beta.sessions.create({
      agent: agent.id,
      environment_id: env.id,
      title: "sdk session",
      resources: [{ type: "file", file_id: file.id }],
    });
    expectSdkShape(session, sessionKeys, "session");
    expectSdkShape(session.agent, sessionAgentKeys, "agent");
    expectSdkShape(session.resources[0], fileResourceKeys, "file");
    await client.beta.sessions.events.send(session.id, {
      events: [{ type: "user.message", content: [{ type: "text", text: "hello" }] }],
    });
    const events = [];
    for await (const e of client.beta.sessions.events.list(session.id)) events.push(e);
    const user = events.find((e) => e.type === "user.message");
    const reply = events.find((e) => e.type === "agent.message");
    expectSdkShape(user, userMessageEventKeys, "user.message");
    expectSdkShape(reply, agentMessageEventKeys, "agent.message");
    expectSdkShape(
      events.find((e) => e.type === "session.status_running"),
      statusRunningEventKeys,
      "session.status_running",
    );
    expectSdkShape(
      events.find((e) => e.type === "session.status_idle"),
      statusIdleEventKeys,
      "session.status_idle",
    );
    const page = await client.beta.sessions.list();
    expect(page.data.map((s) => s.id)).toEqual([session.id]);
    expect(page.prev_page === null || typeof page.prev_page === "string").toBe(true);
    expect((await client.beta.sessions.update(session.id, { title: "renamed" })).title).toBe("renamed");
    expectSdkShape(await client.beta.sessions.archive(session.id), sessionKeys, "session");
    expectSdkShape(await client.beta.sessions.delete(session.id), deletedKeys, "session_deleted");
  });
});

describe("provider_c with the official SDK: deployments", () => {
  it("create with a cron schedule, update, pause, unpause, run, runs, archive", async () => {
    const env = await newEnvironment();
    const agent = await newAgent();
    const dep = await client.beta.deployments.create({
      name: "nightly",
      agent: agent.id,
      environment_id: env.id,
      initial_events: [{ type: "user.message", content: [{ type: "text", text: "report" }] }],
      schedule: { type: "cron", expression: "0 3 * * *", timezone: "Europe/Paris" },
    });
    expectSdkShape(dep, deploymentKeys, "deployment");
    if (!dep.schedule) throw new Error("schedule missing");
    expectSdkShape(dep.schedule, cronScheduleKeys, "cron");
    expect((await client.beta.deployments.update(dep.id, { description: "d" })).description).toBe("d");
    expect((await client.beta.deployments.pause(dep.id)).status).toBe("paused");
    expect((await client.beta.deployments.unpause(dep.id)).status).toBe("active");
    const run = await client.beta.deployments.run(dep.id);
    expectSdkShape(run, deploymentRunKeys, "deployment_run");
    expectSdkShape(await client.beta.deploymentRuns.retrieve(run.id), deploymentRunKeys, "deployment_run");
    const runs: string[] = [];
    for await (const r of client.beta.deploymentRuns.list({ deployment_id: dep.id })) runs.push(r.id);
    expect(runs).toEqual([run.id]);
    expect(run.trigger_context).toEqual({ type: "manual" });
    // A day on the simulated clock: the 03:00 Paris slot fires once, as a schedule-triggered run.
    await fetch(`${sim.origin}/_sim/clock`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ advance_seconds: 86_400 }),
    });
    const scheduled = [];
    for await (const r of client.beta.deploymentRuns.list({ deployment_id: dep.id })) {
      if (r.trigger_context.type === "schedule") scheduled.push(r.trigger_context.scheduled_at);
    }
    expect(scheduled).toHaveLength(1);
    expect((await client.beta.deployments.list()).data.map((d) => d.id)).toEqual([dep.id]);
    expect((await client.beta.deployments.archive(dep.id)).archived_at).toEqual(expect.any(String));
  });
});

describe("provider_c with the official SDK: the event stream", () => {
  it("streams the events of a turn sent after connecting; leaving the loop closes it", async () => {
    const env = await newEnvironment();
    const agent = await newAgent();
    const session = await client.beta.sessions.create({ agent: agent.id, environment_id: env.id });
    const stream = await client.beta.sessions.events.stream(session.id);
    await client.beta.sessions.events.send(session.id, {
      events: [{ type: "user.message", content: [{ type: "text", text: "stream me" }] }],
    });
    const types: string[] = [];
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === "session.status_idle") {
        expectSdkShape(event, statusIdleEventKeys, "session.status_idle");
        break;
      }
    }
    expect(types).toEqual(["user.message", "session.status_running", "agent.message", "session.status_idle"]);
  });
});

describe("provider_c with the official SDK: runs that cannot start", () => {
  type RunErrorType = NonNullable<Anthropic.Beta.BetaManagedAgentsDeploymentRun["error"]>["type"];
  it.each<[string, RunErrorType, (ids: { env: string; agent: string; vault: string }) => Promise<unknown>]>([
    [
      "its environment archived",
      "environment_archived_error",
      ({ env }) => client.beta.environments.archive(env),
    ],
    [
      "its environment deleted",
      "environment_not_found_error",
      ({ env }) => client.beta.environments.delete(env),
    ],
    ["its agent archived", "agent_archived_error", ({ agent }) => client.beta.agents.archive(agent)],
    ["its vault archived", "vault_archived_error", ({ vault }) => client.beta.vaults.archive(vault)],
    ["its vault deleted", "vault_not_found_error", ({ vault }) => client.beta.vaults.delete(vault)],
  ])("with %s records the SDK's %s and no session", async (_n, errorType, breakIt) => {
    const env = await newEnvironment();
    const agent = await newAgent();
    const vault = await client.beta.vaults.create({ display_name: "v" });
    const dep = await client.beta.deployments.create({
      name: "fragile",
      agent: agent.id,
      environment_id: env.id,
      vault_ids: [vault.id],
      initial_events: [{ type: "user.message", content: [{ type: "text", text: "go" }] }],
    });
    await breakIt({ env: env.id, agent: agent.id, vault: vault.id });
    const run = await client.beta.deployments.run(dep.id);
    expectSdkShape(run, deploymentRunKeys, "deployment_run");
    expect(run.session_id).toBeNull();
    expect(run.error?.type).toBe(errorType);
    expect(run.error?.message).toEqual(expect.any(String));
  });
});

describe("provider_c with the official SDK: agent features, session resources and threads", () => {
  it("an agent with an MCP server and toolset, an anthropic and a custom skill, read back in SDK shapes", async () => {
    const skill = await client.beta.skills.create({
      files: [await toFile(Buffer.from("---\nname: helper\ndescription: helps\n---\n"), "helper/SKILL.md")],
    });
    const agent = await client.beta.agents.create({
      name: "featured",
      model: { id: "claude-sonnet-4-5", speed: "standard" },
      mcp_servers: [{ name: "docs", type: "url", url: "https://mcp.example.com/mcp" }],
      tools: [
        {
          type: "agent_toolset_20260401",
          default_config: { enabled: false },
          configs: [{ name: "bash", enabled: true }],
        },
        { type: "mcp_toolset", mcp_server_name: "docs" },
      ],
      skills: [
        { type: "anthropic", skill_id: "pptx" },
        { type: "custom", skill_id: skill.id },
      ],
    });
    expectSdkShape(agent, agentKeys, "agent");
    expectSdkShape(agent.mcp_servers[0], mcpServerKeys, "url");
    expectSdkShape(agent.tools[0], toolsetKeys, "agent_toolset_20260401");
    expectSdkShape(agent.tools[1], mcpToolsetKeys, "mcp_toolset");
    expectSdkShape(agent.skills[0], skillRefKeys, "anthropic");
    expectSdkShape(agent.skills[1], skillRefKeys, "custom");
  });

  it("session resources: add a file, list, retrieve, delete", async () => {
    const env = await newEnvironment();
    const agent = await newAgent();
    const session = await client.beta.sessions.create({ agent: agent.id, environment_id: env.id });
    const file = await client.beta.files.upload({ file: await toFile(Buffer.from("x"), "x.txt") });
    const added = await client.beta.sessions.resources.add(session.id, { type: "file", file_id: file.id });
    expectSdkShape(added, fileResourceKeys, "file");
    const listed = [];
    for await (const r of client.beta.sessions.resources.list(session.id))
      listed.push(r.type === "file" ? r.id : r.type);
    expect(listed).toEqual([added.id]);
    expectSdkShape(
      await client.beta.sessions.resources.retrieve(added.id, { session_id: session.id }),
      fileResourceKeys,
      "file",
    );
    expectSdkShape(
      await client.beta.sessions.resources.delete(added.id, { session_id: session.id }),
      deletedKeys,
      "session_resource_deleted",
    );
  });

  it("a coordinator's session has one thread per roster agent, in the SDK's thread shape", async () => {
    const env = await newEnvironment();
    const member = await newAgent("member");
    const coordinator = await client.beta.agents.create({
      name: "coordinator",
      model: "claude-sonnet-4-5",
      multiagent: { type: "coordinator", agents: [member.id] },
    });
    if (coordinator.multiagent?.type !== "coordinator") throw new Error("no roster");
    expectSdkShape(coordinator.multiagent.agents[0], agentRefKeys, "agent");
    const session = await client.beta.sessions.create({ agent: coordinator.id, environment_id: env.id });
    const threads = [];
    for await (const t of client.beta.sessions.threads.list(session.id)) {
      expectSdkShape(t, threadKeys, "session_thread");
      threads.push(t);
    }
    expect(threads).toHaveLength(1);
    const first = threads[0];
    if (!first) throw new Error("no thread");
    expectSdkShape(first.agent, threadAgentKeys, "agent");
    expect(first.agent).not.toHaveProperty("multiagent");
    const got = await client.beta.sessions.threads.retrieve(first.id, { session_id: session.id });
    expect(got.id).toBe(first.id);
    expectSdkShape(
      await client.beta.sessions.threads.archive(first.id, { session_id: session.id }),
      threadKeys,
      "session_thread",
    );
  });
});

describe("provider_c with the official SDK: list items are whole objects", () => {
  // agents' plan reads many resources of a kind from their list pages instead of one GET each
  // (LISTS_SHOW_FULL_OBJECTS in the provider_c adapter): the SDK types a list page as pages of
  // the very object retrieve returns, and the simulator must serve exactly that.
  it("environments, vaults, memory stores, agents and deployments list as they retrieve", async () => {
    const env = await newEnvironment();
    const agent = await newAgent();
    const vault = await client.beta.vaults.create({ display_name: "v", metadata: { a: "1" } });
    const store = await client.beta.memoryStores.create({ name: "notes", description: "sdk" });
    const deployment = await client.beta.deployments.create({
      name: "nightly",
      agent: agent.id,
      environment_id: env.id,
      initial_events: [{ type: "user.message", content: [{ type: "text", text: "report" }] }],
    });
    const pairs: Array<[string, unknown[], unknown]> = [
      [
        "environment",
        (await client.beta.environments.list()).data,
        await client.beta.environments.retrieve(env.id),
      ],
      ["vault", (await client.beta.vaults.list()).data, await client.beta.vaults.retrieve(vault.id)],
      [
        "memory store",
        (await client.beta.memoryStores.list()).data,
        await client.beta.memoryStores.retrieve(store.id),
      ],
      ["agent", (await client.beta.agents.list()).data, await client.beta.agents.retrieve(agent.id)],
      [
        "deployment",
        (await client.beta.deployments.list()).data,
        await client.beta.deployments.retrieve(deployment.id),
      ],
    ];
    for (const [kind, listed, retrieved] of pairs)
      expect({ kind, listed }).toEqual({ kind, listed: [retrieved] });
  });
});
