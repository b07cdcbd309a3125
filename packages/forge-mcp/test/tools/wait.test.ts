import { PassThrough } from "node:stream";
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { Progress } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ForgeApi } from "../../src/forge/api.js";
import { NO_PEER } from "../../src/mcp/catalogue.js";
import { createMcpServer } from "../../src/mcp/sdk-server.js";
import { serveStdio } from "../../src/mcp/stdio.js";
import { createCatalogue } from "../../src/tools/index.js";
import { type Forge, startForge } from "../forge-sim.js";
import { type RunningForgeMcp, startForgeMcp } from "../helpers.js";

/**
 * wait_for_pipeline, wait_for_job and play_pipeline_jobs (src/tools/wait.ts) against the forge
 * simulator, whose jobs run on its clock: a pipeline driven to its end while the tool waits
 * (progress notifications on the call's own event stream over HTTP, polls at least a second
 * apart), a job that does not finish before timeout_seconds, two manual jobs played in a row
 * (progress growing across both), and a call ended by its client, over HTTP (the request closed)
 * and by notifications/cancelled (the SDK server stdio uses), which stops polling at once.
 *
 * notifications/cancelled on a request of its own (src/mcp/cancels.ts): /mcp is stateless, so a
 * 2025 client's cancel reaches the call it names through the process's cancel table, whichever
 * way the call was answered (the JSON path, the SDK's event stream, the pooled SDK server, MCP
 * 2026-07-28), and only if the same caller sent it. Those rows run on a second server with
 * REMOTE_AUTHORIZATION (each request carries its caller's own forge token: alice waits, bob
 * attacks); each starts a wait polling every second (the shortest interval), cancels it once the
 * forge saw the first poll, and counts the polls past the second one's time. Alice's calls run side
 * by side with no session, so each has an id of its own: two calls of one caller under one id are
 * not told apart, and a cancel naming it reaches neither. Last, a tool that does not wait never
 * reads its call's signal (src/tools/define.ts), so a plain call makes no AbortController and
 * enters no cancel table.
 */

type Result = { isError?: boolean; content: Array<{ text: string }>; structuredContent?: any };
const P = "/api/v4/projects/1";

let forge: Forge;
let mcp: RunningForgeMcp;
let remote: RunningForgeMcp;
let client: Client;
const rest = async (method: string, path: string, body?: unknown) =>
  (
    await fetch(`${forge.origin}${path}`, {
      method,
      headers: { "private-token": "sim-forge-pat", "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
  ).json() as Promise<any>;
/**
 * The GETs of one path the forge saw (each test waits on a pipeline of its own). The forge's log
 * is read from where the last read ended, one read at a time, and the GETs counted per path: the
 * rows ask often and side by side, and the whole log each time would be most of their work.
 */
const gets = new Map<string, number>();
let logRead = 0;
let reading: Promise<void> | undefined;
async function readLog(): Promise<void> {
  const r = await fetch(`${forge.origin}/_sim/log?since=${logRead}`);
  for (const e of ((await r.json()) as { entries: Array<{ seq: number; method: string; path: string }> })
    .entries) {
    if (e.method === "GET") gets.set(e.path, (gets.get(e.path) ?? 0) + 1);
    logRead = Math.max(logRead, e.seq);
  }
}
async function polls(path: string): Promise<number> {
  // a read under way may have started before the GET this caller waits for: read once more after it
  while (reading) await reading;
  reading = readLog().finally(() => {
    reading = undefined;
  });
  await reading;
  return gets.get(path) ?? 0;
}

beforeAll(async () => {
  forge = await startForge();
  mcp = await startForgeMcp({
    MCP_TRANSPORT: "http",
    FORGE_TOKEN: "sim-forge-pat",
    FORGE_API_URL: forge.apiUrl,
    FORGE_TOOLSETS: "pipelines",
  });
  remote = await startForgeMcp({
    REMOTE_AUTHORIZATION: "true",
    FORGE_API_URL: forge.apiUrl,
    FORGE_TOOLSETS: "pipelines",
  });
  client = new Client({ name: "wait", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${mcp.url}/mcp`)));
});
afterAll(async () => {
  await client?.close();
  await mcp?.close();
  await remote?.close();
  await forge?.close();
});

const ALICE = { authorization: "Bearer sim-forge-pat" };
const BOB = { authorization: "Bearer sim-forge-pat-bob" };
const V = "2026-07-28";
const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": V,
  "io.modelcontextprotocol/clientCapabilities": {},
};
type Json = Record<string, any>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const newPipeline = async () => ((await rest("POST", `${P}/pipeline`, { ref: "main" })) as { id: number }).id;
const pipelinePolls = (id: number) => polls(`${P}/pipelines/${id}`);
async function firstPoll(id: number): Promise<void> {
  while ((await pipelinePolls(id)) === 0) await sleep(40);
}
/** Past the time of the next poll (a second after the first): how many polls there were. */
async function pollsAfterNextPollTime(id: number): Promise<number> {
  await sleep(1200);
  return pipelinePolls(id);
}
const waitArgs = (id: number, timeout = 5) => ({
  project_id: 1,
  pipeline_id: id,
  poll_interval_seconds: 1,
  timeout_seconds: timeout,
});
/** A POST to the REMOTE_AUTHORIZATION server's /mcp. */
function post(body: unknown, headers: Record<string, string>) {
  return fetch(`${remote.url}/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify(body),
  });
}
const cancelOf = (requestId: string | number, meta?: Json) => ({
  jsonrpc: "2.0",
  method: "notifications/cancelled",
  params: { requestId, reason: "the person pressed stop", ...(meta && { _meta: meta }) },
});
/** A client's next request id, moved past `n` pings (each row's call gets an id of its own). */
async function skipIds(c: { ping(): Promise<unknown> }, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await c.ping();
}

// every waiting row at once (vitest runs 5 at a time by default): most of each is waiting
vi.setConfig({ maxConcurrency: 16 });

// No row moves the simulator's clock (a move would end the other rows' pipelines): all run at once.
describe("waiting for a pipeline or a job", () => {
  it.concurrent("waits for a running pipeline to finish, reporting each poll as progress", async () => {
    // a pipeline of one manual job that, once played, queues a second and runs a second: it
    // finishes by itself while the tool waits
    await forge.seed({
      pipelines: [
        {
          project: "acme/widgets",
          ref: "main",
          jobs: [{ name: "waited-on", stage: "deploy", status: "manual", seconds: 1 }],
        },
      ],
    });
    const manual = (await rest("GET", `${P}/jobs?scope[]=manual`)) as Array<{
      id: number;
      name: string;
      pipeline: { id: number };
    }>;
    const job = manual.find((j) => j.name === "waited-on")!;
    await rest("POST", `${P}/jobs/${job.id}/play`);
    const pipeline = { id: job.pipeline.id };
    const seen: Progress[] = [];
    const result = (await client.callTool(
      {
        name: "wait_for_pipeline",
        arguments: { project_id: 1, pipeline_id: pipeline.id, timeout_seconds: 30, poll_interval_seconds: 1 },
      },
      undefined,
      { onprogress: (p) => seen.push(p) },
    )) as Result;
    expect(result.isError, result.content[0]?.text).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ id: pipeline.id, status: "success" });
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen[0]).toMatchObject({ total: 30, message: expect.stringMatching(/: (pending|running)$/) });
    expect(seen.at(-1)!.message).toBe(`pipeline ${pipeline.id}: success`);
    // progress is the seconds waited when each read came back (the server's count, whatever the
    // notifications' delivery): never more often than poll_interval_seconds
    for (let i = 1; i < seen.length; i++)
      expect(seen[i]!.progress - seen[i - 1]!.progress).toBeGreaterThanOrEqual(1);
  });

  it.concurrent("gives up at timeout_seconds, naming the last status", async () => {
    const pipeline = await rest("POST", `${P}/pipeline`, { ref: "main" });
    // pending for a second of the simulator's clock, then running: either, on a busy host
    const [job] = await rest("GET", `${P}/pipelines/${pipeline.id}/jobs?scope[]=pending&scope[]=running`);
    const started = Date.now();
    const result = (await client.callTool({
      name: "wait_for_job",
      arguments: { project_id: 1, job_id: job.id, timeout_seconds: 1, poll_interval_seconds: 1 },
    })) as Result;
    expect(result.isError).toBe(true);
    // queued for a second, then running for 30 on the simulator's clock
    expect(result.content[0]!.text).toMatch(
      new RegExp(`^Tool failed: job ${job.id} is still (pending|running) after 1 s \\(timeout_seconds\\)$`),
    );
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it.concurrent("answers a finished job at once, and refuses to poll more often than once a second", async () => {
    const [job] = await rest("GET", `${P}/jobs?scope[]=success`);
    const done = (await client.callTool({
      name: "wait_for_job",
      arguments: { project_id: 1, job_id: job.id },
    })) as Result;
    expect(done.structuredContent).toMatchObject({ id: job.id, status: "success" });
    const eager = (await client.callTool({
      name: "wait_for_job",
      arguments: { project_id: 1, job_id: job.id, poll_interval_seconds: 0 },
    })) as Result;
    expect(eager.isError).toBe(true);
    expect(eager.content[0]!.text).toMatch(/poll_interval_seconds/);
  });

  it.concurrent("plays manual jobs one after another, its progress growing across them", async () => {
    await forge.seed({
      pipelines: [
        {
          project: "acme/widgets",
          ref: "main",
          jobs: [
            { name: "first", stage: "deploy", status: "manual", seconds: 0 },
            { name: "second", stage: "deploy", status: "manual", seconds: 0 },
          ],
        },
      ],
    });
    const manual = (await rest("GET", `${P}/jobs?scope[]=manual`)) as Array<{ id: number; name: string }>;
    const ids = ["first", "second"].map((n) => manual.find((j) => j.name === n)!.id);
    const seen: Progress[] = [];
    const result = (await client.callTool(
      {
        name: "play_pipeline_jobs",
        arguments: { project_id: 1, job_ids: ids, timeout_seconds: 10, poll_interval_seconds: 1 },
      },
      undefined,
      { onprogress: (p) => seen.push(p) },
    )) as Result;
    expect(result.isError, result.content[0]?.text).toBeFalsy();
    expect(
      JSON.parse(result.content[0]!.text).map(
        (j: { name: string; status: string }) => `${j.name} ${j.status}`,
      ),
    ).toEqual(["first success", "second success"]);
    // each job read until it finished (a second after it was played), the second only after the first
    const messages = seen.map((p) => p.message!);
    const last = (id: number) => messages.findLastIndex((m) => m.startsWith(`job ${id}:`));
    const first = (id: number) => messages.findIndex((m) => m.startsWith(`job ${id}:`));
    expect(messages[last(ids[0]!)]).toBe(`job ${ids[0]}: success`);
    expect(messages[last(ids[1]!)]).toBe(`job ${ids[1]}: success`);
    expect(last(ids[0]!)).toBeLessThan(first(ids[1]!));
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.progress).toBeGreaterThan(seen[i - 1]!.progress);
    expect(seen.every((p) => p.total === 20)).toBe(true);
  });

  it.concurrent("over HTTP, stops polling when its client ends the request mid-wait", async () => {
    const pipeline = await rest("POST", `${P}/pipeline`, { ref: "main" });
    const gone = new AbortController();
    const res = await fetch(`${mcp.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: {
          name: "wait_for_pipeline",
          arguments: { project_id: 1, pipeline_id: pipeline.id, poll_interval_seconds: 1 },
          _meta: { progressToken: "p1" },
        },
      }),
      signal: gone.signal,
    });
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    // the first progress notification, then the client hangs up
    const reader = res.body!.getReader();
    const { value } = await reader.read();
    expect(new TextDecoder().decode(value)).toContain("notifications/progress");
    gone.abort();
    await new Promise((r) => setTimeout(r, 1500));
    expect(await polls(`${P}/pipelines/${pipeline.id}`)).toBe(1);
  });

  it.concurrent("stops polling as soon as its client cancels the call", async () => {
    const server = createMcpServer(
      createCatalogue(
        { readOnly: false, toolsets: ["pipelines"] },
        () => new ForgeApi(forge.apiUrl, "sim-forge-pat", 5000),
      ),
    );
    const [a, b] = InMemoryTransport.createLinkedPair();
    const inProcess = new Client({ name: "in-process", version: "1.0.0" });
    await Promise.all([server.connect(a), inProcess.connect(b)]);
    const pipeline = await rest("POST", `${P}/pipeline`, { ref: "main" });
    const cancel = new AbortController();
    const call = inProcess.callTool(
      {
        name: "wait_for_pipeline",
        arguments: { project_id: 1, pipeline_id: pipeline.id, poll_interval_seconds: 1 },
      },
      undefined,
      { signal: cancel.signal, onprogress: () => cancel.abort() },
    );
    await expect(call).rejects.toThrow(/abort/i);
    // past the next poll's time: no second read came
    await new Promise((r) => setTimeout(r, 1500));
    expect(await polls(`${P}/pipelines/${pipeline.id}`)).toBe(1);
    await inProcess.close();
  });

  it.concurrent.each([
    ["the official v1 client, a plain call (the JSON path)", false, 0],
    ["the official v1 client, asking for progress (the SDK's event stream)", true, 1],
  ])("cancelled over HTTP by %s, aborting its signal", async (_name, progress, skip) => {
    const v1 = new Client({ name: "cancel-v1", version: "1.0.0" });
    const errors: unknown[] = [];
    v1.onerror = (e) => errors.push(e);
    await v1.connect(
      new StreamableHTTPClientTransport(new URL(`${remote.url}/mcp`), { requestInit: { headers: ALICE } }),
    );
    await skipIds(v1, skip);
    const id = await newPipeline();
    const stop = new AbortController();
    // with progress, cancelled once the first poll's progress came (none may come after it)
    const call = v1.callTool({ name: "wait_for_pipeline", arguments: waitArgs(id) }, undefined, {
      signal: stop.signal,
      ...(progress && { onprogress: () => stop.abort("stop") }),
    });
    call.catch(() => {});
    await firstPoll(id);
    if (!progress) stop.abort("stop");
    await expect(call).rejects.toThrow(/stop/);
    expect(await pollsAfterNextPollTime(id)).toBe(1);
    // the call's request ended without an answer, and without an error on the client's side
    expect(errors).toEqual([]);
    await v1.close();
  });

  it.concurrent.each([
    ["in the 2025 handshake (notifications/cancelled)", "2025", 2],
    ["at 2026-07-28 (it closes the call's stream)", "2026", 0],
  ] as const)("cancelled over HTTP by the official v2 client %s", async (_name, revision, skip) => {
    const v2 = new ClientV2(
      { name: "cancel-v2", version: "1.0.0" },
      { capabilities: {}, ...(revision === "2026" && { versionNegotiation: { mode: "auto" as const } }) },
    );
    await v2.connect(new TransportV2(new URL(`${remote.url}/mcp`), { requestInit: { headers: ALICE } }));
    expect(v2.getProtocolEra()).toBe(revision === "2026" ? "modern" : "legacy");
    await skipIds(v2, skip);
    const id = await newPipeline();
    const stop = new AbortController();
    const call = v2.callTool({ name: "wait_for_pipeline", arguments: waitArgs(id) }, { signal: stop.signal });
    call.catch(() => {});
    await firstPoll(id);
    stop.abort("stop");
    await expect(call).rejects.toThrow();
    expect(await pollsAfterNextPollTime(id)).toBe(1);
    await v2.close();
  });

  it.concurrent.each([
    [
      "2025, a call not in its simplest form (the pooled SDK server)",
      (id: number) => ({
        jsonrpc: "2.0",
        id: "c-1",
        method: "tools/call",
        params: { name: "wait_for_pipeline", arguments: waitArgs(id), _meta: {} },
      }),
      {},
      cancelOf("c-1"),
      {},
    ],
    [
      "2026-07-28, notifications/cancelled sent anyway (the revision's own lane)",
      (id: number) => ({
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "wait_for_pipeline", arguments: waitArgs(id), _meta: ENVELOPE },
      }),
      { "mcp-protocol-version": V, "mcp-method": "tools/call", "mcp-name": "wait_for_pipeline" },
      cancelOf(7, ENVELOPE),
      { "mcp-protocol-version": V, "mcp-method": "notifications/cancelled" },
    ],
  ])(
    "cancelled over HTTP, %s: the call's request ends with no answer",
    async (_n, call, callHeaders, cancel, cancelHeaders) => {
      const id = await newPipeline();
      const answer = post(call(id), { ...ALICE, ...callHeaders });
      await firstPoll(id);
      expect((await post(cancel, { ...ALICE, ...cancelHeaders })).status).toBe(202);
      const r = await answer;
      expect(r.status).toBe(200);
      expect(r.headers.get("content-type")).toMatch(/^text\/event-stream/);
      expect(await r.text()).toBe("");
      expect(await pollsAfterNextPollTime(id)).toBe(1);
    },
  );

  it.concurrent("another caller's cancel naming the same request id reaches nothing: the call goes on to its answer", async () => {
    const id = await newPipeline();
    // timeout_seconds 2: left alone, the call polls on and answers that the pipeline still runs
    // (a cancelled one would end its request with an empty event stream)
    const answer = post(
      {
        jsonrpc: "2.0",
        id: "a-1",
        method: "tools/call",
        params: { name: "wait_for_pipeline", arguments: waitArgs(id, 2) },
      },
      ALICE,
    );
    await firstPoll(id);
    expect((await post(cancelOf("a-1"), BOB)).status).toBe(202);
    const r = (await (await answer).json()) as Json;
    expect(r).toMatchObject({ id: "a-1", result: { isError: true } });
    expect(r.result.content[0].text).toMatch(/still (pending|running) after 2 s/);
    expect(await pipelinePolls(id)).toBeGreaterThanOrEqual(2);
  });

  it.concurrent("a cancel of a request nothing runs (unknown, or answered already) is accepted and ignored", async () => {
    expect((await post(cancelOf("nothing-runs"), ALICE)).status).toBe(202);
    const done = (await (
      await post(
        { jsonrpc: "2.0", id: "w", method: "tools/call", params: { name: "whoami", arguments: {} } },
        ALICE,
      )
    ).json()) as Json;
    expect(done.result.isError).toBeFalsy();
    expect((await post(cancelOf("w"), ALICE)).status).toBe(202);
  });

  it.concurrent("over stdio at 2026-07-28, notifications/cancelled stops the call, which is not answered", async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const lines: Json[] = [];
    let buffered = "";
    stdout.on("data", (chunk: Buffer) => {
      buffered += chunk.toString("utf8");
      for (let i = buffered.indexOf("\n"); i >= 0; i = buffered.indexOf("\n")) {
        lines.push(JSON.parse(buffered.slice(0, i)));
        buffered = buffered.slice(i + 1);
      }
    });
    const catalogue = createCatalogue(
      { readOnly: false, toolsets: ["pipelines"] },
      () => new ForgeApi(forge.apiUrl, "sim-forge-pat", 5000),
    );
    await serveStdio(catalogue, { seal: () => "", open: () => undefined }, { stdin, stdout });
    const send = (m: unknown) => stdin.write(`${JSON.stringify(m)}\n`);
    const id = await newPipeline();
    send({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "wait_for_pipeline", arguments: waitArgs(id), _meta: ENVELOPE },
    });
    await firstPoll(id);
    send(cancelOf(3, ENVELOPE));
    expect(await pollsAfterNextPollTime(id)).toBe(1);
    expect(lines.filter((m) => m.id === 3)).toEqual([]);
    stdin.end();
  });

  it("once every call has ended, none is left in the cancel table", () => {
    expect(remote.server.mcpPool().cancellable).toBe(0);
    expect(mcp.server.mcpPool().cancellable).toBe(0);
  });
});

describe("a call's signal is read only by a tool that waits", () => {
  it.each([
    ["a reading tool (get_project)", "get_project", { project_id: 1 }, 0],
    ["a waiting tool (wait_for_job)", "wait_for_job", { project_id: 1, job_id: 1 }, 1],
  ])("%s", async (_name, tool, args, reads) => {
    // a forge that refuses the connection: each tool's first request fails at once
    const catalogue = createCatalogue(
      { readOnly: false, toolsets: ["projects", "pipelines"] },
      () => new ForgeApi("http://127.0.0.1:9/api/v4", "t", 1000),
    );
    let read = 0;
    const signal = new AbortController().signal;
    await catalogue.tools.get(tool)!.handler(args, {
      requestId: 1,
      get signal() {
        read++;
        return signal;
      },
      sendNotification: async () => {},
      peer: NO_PEER,
    });
    expect(read > 0 ? 1 : 0).toBe(reads);
  });
});
