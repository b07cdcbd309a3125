// Sessions through the library on every provider and flavour that has them (docs/cli.md
// §Sessions): create, a turn with a tool call (held for confirmation where the permission asks),
// list/get/events, a dropped stream resumed without duplicates, a stream cut for good, delete.

import { promises as fs } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  Conversation,
  createSession,
  deleteSession,
  getSession,
  listSessions,
  openSession,
  type SessionEvent,
  StreamCutError,
  sessionEvents,
} from "../../src/index.js";
import {
  applyAll,
  OTHER_PROJECT_YAML,
  type SessionWorld,
  sessionWorld,
  setChunkMs,
  YAML,
} from "./sessions-project.js";

let world: SessionWorld;
let applied = false;

/** What `session create --resource` names: a file and a memory store per provider that has them. */
const WITH_RESOURCES = `${YAML}
files:
  doc-a: { provider: provider_a, source: ./doc.txt }
  doc-d: { provider: provider_d, source: ./doc.txt }
memory_stores:
  notes-c: { provider: provider_c, description: Notes }
  notes-d: { provider: provider_d, description: Notes }
`;

beforeAll(async () => {
  world = await sessionWorld(WITH_RESOURCES);
  await fs.writeFile(join(world.dir, "doc.txt"), "A document.\n");
  // provider_a audits an upload before it can be mounted: no wait here.
  await fetch(`${world.sims.a.origin}/_sim/seed`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ settings: { file_audit_polls: 0, file_audit_ms: 0 } }),
  });
}, 30_000);
afterAll(() => world?.close());

const ROWS = [
  // agent, provider, asks for confirmation, reply prefix
  ["talk-a", "provider_a", false, "Received: "],
  ["talk-b", "provider_b", true, "Received: "],
  ["talk-bf", "provider_b", true, "Received: "],
  ["talk-c", "provider_c", true, "(simulated) received: "],
  ["talk-d", "provider_d", true, "(simulated) received: "],
] as const;

const quick = { maxReconnects: 2, backoffMs: () => 5 };

async function turn(conversation: Conversation, text: string) {
  const events: SessionEvent[] = [];
  const asked: string[] = [];
  const finished = await conversation.turn(text, {
    ...quick,
    onEvent: (e) => events.push(e),
    confirm: async (call) => {
      asked.push(call.tool?.name ?? "");
      return "allow";
    },
  });
  return { events, asked, finished };
}

describe("sessions before apply", () => {
  it("a declared agent that is not applied is refused, naming agents apply", async () => {
    const error = await createSession(await world.options(), "talk-c").catch((e: Error) => e);
    expect(String(error)).toContain(
      'provider_c.agents["talk-c"] is declared but not applied yet; run agents apply first',
    );
  });
});

describe.each(ROWS)("sessions of %s (%s)", (agent, provider, asks, prefix) => {
  let id: string;
  beforeAll(async () => {
    if (!applied) await applyAll(world);
    applied = true;
  }, 60_000);

  it("create, then a turn: the reply, the tool call and its result, idle at the end", async () => {
    setChunkMs(world, 1);
    const options = await world.options();
    const created = await createSession(options, agent, agent === "talk-bf" ? { identity: "alice" } : {});
    id = created.id;
    expect(created).toMatchObject({ provider, agent: expect.stringContaining(`agents["${agent}"]`) });
    const conversation = new Conversation(await openSession(options, id));
    const { events, asked, finished } = await turn(conversation, "please use the tool");
    expect(finished).toBe(true);
    const kinds = events.map((e) => (e.type === "status" ? `status:${e.status}` : e.type));
    const expected = [
      "status:running",
      "text",
      "tool_call",
      ...(asks ? ["status:requires_action", "status:running"] : []),
      "tool_result",
      "text",
      ...(provider === "provider_c" ? ["usage"] : []),
      "status:idle",
    ];
    expect(kinds.filter((k) => k !== "text_delta" && k !== "user_message" && k !== "other")).toEqual(
      expected,
    );
    expect(asked).toEqual(asks ? [provider === "provider_b" ? "Bash" : "bash"] : []);
    const texts = events.filter((e) => e.type === "text").map((e) => e.text);
    expect(texts).toEqual([`${prefix}please use the tool`, "The tool said: hello."]);
    // provider_c previews the reply word by word; the buffered reply then says it was streamed.
    const deltas = events
      .filter((e) => e.type === "text_delta")
      .map((e) => e.text)
      .join("");
    expect(deltas).toBe(
      provider === "provider_c" ? `${prefix}please use the tool` + "The tool said: hello." : "",
    );
    for (const e of events) expect(e.raw).toBeTypeOf("object");
  });

  it("list, get and the event history show it", async () => {
    const options = await world.options();
    const listed = await listSessions(options, { agent });
    expect(listed.map((s) => s.id)).toContain(id);
    expect((await listSessions(options)).map((s) => s.id)).toContain(id);
    expect(await getSession(options, id)).toMatchObject({ id, provider });
    const history: SessionEvent[] = [];
    await sessionEvents(await openSession(options, id), { onEvent: (e) => history.push(e) });
    expect(history[0]).toMatchObject({ type: "user_message", text: "please use the tool" });
    expect(history.at(-1)).toMatchObject({ type: "status", status: "idle" });
  });

  it("a stream dropped mid-turn resumes from the last event, nothing twice", async () => {
    setChunkMs(world, 2);
    const options = await world.options();
    const open = await openSession(options, id);
    const conversation = new Conversation(open);
    const reconnects: number[] = [];
    const events: SessionEvent[] = [];
    const finished = await conversation.turn("tool [drop]", {
      ...quick,
      onEvent: (e) => events.push(e),
      onReconnect: (n) => reconnects.push(n),
      confirm: async () => "allow",
    });
    expect(finished).toBe(true);
    expect(reconnects).toEqual([1]);
    const ids = events.filter((e) => e.type !== "text_delta").map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    const history: SessionEvent[] = [];
    await sessionEvents(open, { onEvent: (e) => history.push(e) });
    expect(ids).toEqual(history.slice(history.length - ids.length).map((e) => e.id));
    expect(ids[0]).toBe(history.find((e) => e.type === "user_message" && e.text === "tool [drop]")?.id);
  });

  it("a stream cut for good ends in one clear error", async () => {
    setChunkMs(world, 0);
    const conversation = new Conversation(await openSession(await world.options(), id));
    const error = await turn(conversation, "hello [cut]").catch((e: Error) => e);
    expect(error).toBeInstanceOf(StreamCutError);
    expect(String((error as Error).message)).toMatch(
      new RegExp(`^the event stream of session ${id} was cut and could not be resumed after 2 attempts`),
    );
  });

  it("delete: the session is gone (Forward sessions are archived)", async () => {
    const options = await world.options();
    expect((await deleteSession(options, id)).id).toBe(id);
    if (agent === "talk-bf") {
      expect((await getSession(options, id)).remote.archived_at).toEqual(expect.any(String));
      return;
    }
    const error = await getSession(options, id).catch((e: Error) => e);
    expect(String(error)).toMatch(
      new RegExp(`no session ${id} on provider_a, provider_b, provider_c, provider_d`),
    );
  });
});

describe.each(ROWS.filter((row) => row[2]))(
  "a denied tool call of %s (%s)",
  (agent, provider, _asks, prefix) => {
    beforeAll(async () => {
      if (!applied) await applyAll(world);
      applied = true;
    }, 60_000);

    it("does not run: no result, and the agent says it did not run it", async () => {
      const options = await world.options();
      const created = await createSession(options, agent, agent === "talk-bf" ? { identity: "alice" } : {});
      const conversation = new Conversation(await openSession(options, created.id));
      const events: SessionEvent[] = [];
      const finished = await conversation.turn("please use the tool", {
        ...quick,
        onEvent: (e) => events.push(e),
        confirm: async () => "deny",
      });
      expect(finished).toBe(true);
      expect(events.filter((e) => e.type === "tool_call")).toHaveLength(1);
      expect(events.filter((e) => e.type === "tool_result")).toEqual([]);
      const texts = events.filter((e) => e.type === "text").map((e) => e.text);
      const tool = provider === "provider_b" ? "Bash" : "bash";
      expect(texts).toEqual([`${prefix}please use the tool`, `I did not run ${tool}: the user denied it.`]);
      await deleteSession(options, created.id);
    });
  },
);

describe("session errors", () => {
  it.each([
    [
      "an unknown session id",
      "sesn_nope",
      /^no session sesn_nope on provider_a, provider_b, provider_c, provider_d \(the providers .*agents\.yaml configures\)$/,
    ],
  ])("%s", async (_what, id, message) => {
    const error = await getSession(await world.options(), id).catch((e: Error) => e);
    expect((error as Error).message).toMatch(message);
  });

  it("a session of an agent another project applied is refused", async () => {
    const other = await sessionWorldOnSameSims();
    const options = await other.options();
    const outcome = await (await import("../../src/index.js")).apply({
      ...options,
      confirm: async () => true,
    });
    expect(outcome.result?.ok).toBe(true);
    const theirs = await createSession(options, "talk-c");
    const error = await getSession(await world.options(), theirs.id).catch((e: Error) => e);
    expect((error as Error).message).toMatch(
      new RegExp(
        `^session ${theirs.id} runs agent agent_\\S+ on provider_c, which is not an agent of this project \\(agents-sessions-`,
      ),
    );
  });

  it("options a provider does not have are refused, naming the providers that have them", async () => {
    const options = await world.options();
    await expect(createSession(options, "talk-c", { env: { A: "1" } })).rejects.toThrow(
      "--env is supported on provider_b sessions only",
    );
    await expect(createSession(options, "talk-a", { identity: "alice" })).rejects.toThrow(
      "--identity is supported on provider_b Forward sessions only",
    );
  });
});

describe("a reader slower than the stream", () => {
  it("holds the stream's next read while pace is pending, then delivers the rest (nothing queued meanwhile)", async () => {
    if (!applied) await applyAll(world);
    applied = true;
    setChunkMs(world, 0);
    const options = await world.options();
    const { id } = await createSession(options, "talk-c");
    const conversation = new Conversation(await openSession(options, id));
    let delivered = 0;
    let release: (() => void) | undefined;
    let heldAt: number | undefined;
    const words = Array.from({ length: 3_000 }, (_, i) => `w${i}`).join(" ");
    const turn = conversation.turn(words, {
      ...quick,
      onEvent: () => {
        delivered++;
      },
      // The first chunk's events delivered, the reader says it is full (the CLI: stdout needs drain).
      pace: () => {
        if (heldAt !== undefined) return undefined;
        heldAt = delivered;
        return new Promise<void>((resolve) => {
          release = resolve;
        });
      },
    });
    for (let i = 0; i < 100 && release === undefined; i++) await new Promise((r) => setTimeout(r, 10));
    expect(release).toBeDefined();
    await new Promise((r) => setTimeout(r, 100));
    // Nothing more was read while held: the rest waits in the connection, not in our memory.
    expect(delivered).toBe(heldAt);
    expect(heldAt).toBeLessThan(3_000);
    release!();
    expect(await turn).toBe(true);
    expect(delivered).toBeGreaterThan(3_000);
    await deleteSession(options, id);
  });
});

describe("session create --resource", () => {
  const ids = async () =>
    JSON.parse(await fs.readFile(join(world.dir, "agents.state.json"), "utf8")).resources as Record<
      string,
      { id: string }
    >;
  // One row per provider and flavour: what each session create takes (docs/cli.md §Sessions).
  it.each([
    {
      agent: "talk-a",
      given: [{ type: "file", file: "doc-a", mount_path: "docs/a.txt" }],
      sent: (s: Record<string, { id: string }>) => [
        { type: "file", file_id: s['provider_a.files["doc-a"]']!.id, mount_path: "/mnt/docs/a.txt" },
      ],
    },
    {
      agent: "talk-c",
      given: [
        { type: "git_repository", url: "https://github.com/acme/tools.git", checkout: { branch: "main" } },
        { type: "memory_store", memory_store: "notes-c", access: "read_only" },
      ],
      sent: (s: Record<string, { id: string }>) => [
        {
          type: "github_repository",
          url: "https://github.com/acme/tools",
          checkout: { type: "branch", name: "main" },
          mount_path: "/workspace/tools",
        },
        {
          type: "memory_store",
          memory_store_id: s['provider_c.memory_stores["notes-c"]']!.id,
          access: "read_only",
        },
      ],
    },
    {
      agent: "talk-d",
      given: [
        { type: "memory_store", memory_store: "notes-d" },
        { type: "file", file: "doc-d" },
      ],
      sent: (s: Record<string, { id: string }>) => [
        { type: "memory_store", memory_store_id: s['provider_d.memory_stores["notes-d"]']!.id },
        { type: "file", file_id: s['provider_d.files["doc-d"]']!.id, mount_path: "/mnt/doc.txt" },
      ],
    },
  ])("$agent: the resources reach the provider in its wire form", async ({ agent, given, sent }) => {
    if (!applied) await applyAll(world);
    applied = true;
    const options = await world.options();
    const created = await createSession(options, agent, { resources: given });
    expect(created.remote.resources).toEqual(sent(await ids()).map((r) => expect.objectContaining(r)));
    await deleteSession(options, created.id);
  });

  it.each([
    [
      "talk-d",
      { type: "git_repository", url: "https://github.com/acme/tools" },
      "--resource git_repository is not taken by provider_d sessions; it is supported on provider_b managed, provider_c sessions",
    ],
    [
      "talk-a",
      { type: "memory_store", memory_store: "notes-c" },
      "--resource memory_store is not taken by provider_a sessions; it is supported on provider_b managed, provider_c, provider_d sessions",
    ],
    [
      "talk-bf",
      { type: "file", file_id: "file_1" },
      "--resource is supported on provider_a, provider_b managed, provider_c, provider_d sessions only",
    ],
    [
      "talk-c",
      { type: "memory_store", memory_store: "notes-d" },
      "--resource: no applied memory store notes-d on provider_c; declare it under memory_stores and run agents apply first",
    ],
    [
      "talk-c",
      { type: "volume" },
      '--resource: type must be one of file, memory_store, git_repository (got "volume")',
    ],
  ])("%s %j is refused in one line", async (agent, resource, message) => {
    if (!applied) await applyAll(world);
    applied = true;
    const error = await createSession(await world.options(), agent, {
      resources: [resource],
      ...(agent === "talk-bf" ? { identity: "alice" } : {}),
    }).catch((e: Error) => e);
    expect((error as Error).message).toBe(message);
  });
});

/** A second project (another folder, so another project label) on the same simulators. */
async function sessionWorldOnSameSims() {
  const { promises: fs, mkdtempSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const { loadProject } = await import("../../src/index.js");
  const dir = mkdtempSync(join(tmpdir(), "agents-other-project-"));
  const yaml = OTHER_PROJECT_YAML;
  await fs.writeFile(join(dir, "agents.yaml"), yaml);
  return {
    options: async () => ({
      project: await loadProject({ file: join(dir, "agents.yaml"), env: world.env }),
      env: world.env,
    }),
  };
}
