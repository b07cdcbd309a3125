import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LogEntry, RequestLog } from "../../src/core/request-log.js";
import { createSim, type RunningSim } from "../../src/index.js";
import { definition as providerC } from "../../src/provider-c/index.js";

const entry = (n: number) => ({
  atMs: Date.UTC(2026, 0, 1) + n * 1000,
  method: "GET",
  path: `/things/${n}`,
  status: 200,
  durationMs: 1,
  headers: { authorization: "Bearer secret", "x-n": String(n), accept: ["a", "b"] },
});

describe("RequestLog", () => {
  it("keeps exactly the newest `capacity` entries, however many were added", () => {
    const log = new RequestLog(10);
    for (let n = 1; n <= 35; n++) {
      log.add(entry(n));
      const seqs = log.since().map((e) => e.seq);
      const first = Math.max(1, n - 9);
      expect(seqs).toEqual(Array.from({ length: n - first + 1 }, (_, i) => first + i));
    }
    expect(log.since(30).map((e) => e.path)).toEqual([
      "/things/31",
      "/things/32",
      "/things/33",
      "/things/34",
      "/things/35",
    ]);
  });

  it("renders the time as ISO 8601 and redacts credentials when read", () => {
    const log = new RequestLog();
    log.add({ ...entry(1), fault: "random 503" });
    expect(log.since()).toEqual([
      {
        seq: 1,
        at: "2026-01-01T00:00:01.000Z",
        method: "GET",
        path: "/things/1",
        status: 200,
        durationMs: 1,
        headers: { authorization: "[redacted]", "x-n": "1", accept: "a, b" },
        fault: "random 503",
      },
    ]);
  });

  it("numbers on after a clear, so a reader's cursor stays valid", () => {
    const log = new RequestLog(5);
    log.add(entry(1));
    log.add(entry(2));
    log.clear();
    expect(log.since()).toEqual([]);
    log.add(entry(3));
    expect(log.since(2).map((e) => e.seq)).toEqual([3]);
  });
});

describe("/_sim/log over real sockets: requests the client aborts are logged, marked aborted", () => {
  let sim: RunningSim;
  beforeAll(async () => {
    sim = await createSim(providerC, { quiet: true });
  });
  afterAll(() => sim.close());

  const headers = {
    "x-api-key": "sim-provider-c-key",
    "anthropic-version": "2023-06-01",
    "anthropic-beta": "managed-agents-2026-04-01",
    "content-type": "application/json",
  };
  const api = async (method: string, path: string, body?: unknown) =>
    (await (await fetch(sim.url + path, { method, headers, body: JSON.stringify(body) })).json()) as {
      id: string;
    };

  /** The log entries for `path`, waiting (bounded) for the server to see the client's close. */
  async function entriesFor(path: string, want: (e: LogEntry) => boolean): Promise<LogEntry[]> {
    for (let attempt = 0; attempt < 200; attempt++) {
      const { entries } = (await (await fetch(`${sim.origin}/_sim/log`)).json()) as { entries: LogEntry[] };
      const mine = entries.filter((e) => e.path === path);
      if (mine.some(want)) return mine;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`no matching log entry for ${path}`);
  }

  it("an SSE GET the client closes is logged with its status and aborted: true", async () => {
    const env = await api("POST", "/environments", { name: "e" });
    const agent = await api("POST", "/agents", { name: "a", model: "m" });
    const session = await api("POST", "/sessions", { agent: agent.id, environment_id: env.id });
    const path = `/v1/sessions/${session.id}/events/stream`;
    const controller = new AbortController();
    const res = await fetch(sim.url + path.slice(3), {
      headers: { ...headers, accept: "text/event-stream" },
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    controller.abort();
    const entries = await entriesFor(path, (e) => e.aborted === true);
    expect(entries).toEqual([expect.objectContaining({ method: "GET", status: 200, aborted: true })]);
  });

  it("a request the client gives up on while it is held is logged aborted; finished ones are not", async () => {
    await fetch(`${sim.origin}/_sim/faults`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        rules: [{ method: "GET", path: "/vaults$", nth: 1, action: { type: "hold" } }],
      }),
    });
    const controller = new AbortController();
    const held = fetch(`${sim.url}/vaults`, { headers, signal: controller.signal });
    for (let i = 0; i < 200; i++) {
      const { held: n } = (await (await fetch(`${sim.origin}/_sim/held`)).json()) as { held: number };
      if (n === 1) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    controller.abort();
    await expect(held).rejects.toThrow();
    const entries = await entriesFor("/v1/vaults", (e) => e.aborted === true);
    expect(entries[0]).toMatchObject({ method: "GET", status: 0, aborted: true });
    await fetch(`${sim.origin}/_sim/release`, { method: "POST" });
    await api("GET", "/vaults");
    const all = await entriesFor("/v1/vaults", (e) => e.status === 200);
    expect(all.filter((e) => e.status === 200).every((e) => e.aborted === undefined)).toBe(true);
  });
});
