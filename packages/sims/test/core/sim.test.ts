import { connect } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSim, type RunningSim, type SimDefinition } from "../../src/index.js";

interface Thing {
  id: string;
  name: string;
}

// A minimal definition exercising the shared harness: the provider simulators use the same one.
const things: SimDefinition<{ things: Thing[] }> = {
  name: "things",
  basePath: "/v1",
  createState: () => ({ things: [] }),
  errorBody: (status, message) => ({ error: { status, message } }),
  routes(app, ctx) {
    app.get("/v1/things", (_req, res) => {
      res.json({ data: ctx.state.things });
    });
    app.post("/v1/things", (req, res) => {
      const thing = { id: ctx.ids.next("thg_"), name: String(req.body?.name) };
      ctx.state.things.push(thing);
      res.status(201).json(thing);
    });
    const mounted = express.Router();
    mounted.get("/inner", (_req, res) => {
      res.json({ ok: true });
    });
    app.use("/v1/mounted", mounted);
    app.get("/v1/now", (_req, res) => {
      res.json({ now: ctx.clock.now() });
    });
  },
  seed(ctx, body) {
    for (const t of (body as { things: Thing[] }).things) ctx.state.things.push(t);
    return { seeded: ctx.state.things.length };
  },
  dump: (ctx) => ctx.state,
};

let sim: RunningSim;
beforeAll(async () => {
  sim = await createSim(things, { quiet: true });
});
afterAll(async () => {
  await sim.close();
});

async function control(method: string, path: string, body?: unknown) {
  const res = await fetch(`${sim.origin}/_sim${path}`, {
    method,
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe("simulator harness", () => {
  it("serves the wire API under its base path on loopback", async () => {
    expect(sim.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const res = await fetch(`${sim.url}/things`);
    expect(res.status).toBe(200);
  });

  it("seeds, dumps and resets state", async () => {
    await control("POST", "/reset");
    expect((await control("POST", "/seed", { things: [{ id: "thg_1", name: "a" }] })).body).toEqual({
      seeded: 1,
    });
    expect((await control("GET", "/state")).body.things).toHaveLength(1);
    await control("POST", "/reset");
    expect((await control("GET", "/state")).body.things).toHaveLength(0);
  });

  it("logs requests with credentials redacted", async () => {
    await control("POST", "/reset");
    await fetch(`${sim.url}/things`, {
      headers: { authorization: "Bearer secret-token", "x-api-key": "k-123" },
    });
    const { entries } = (await control("GET", "/log")).body;
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ method: "GET", path: "/v1/things", status: 200 });
    expect(entries[0].headers.authorization).toBe("[redacted]");
    expect(JSON.stringify(entries)).not.toContain("secret-token");
    expect(JSON.stringify(entries)).not.toContain("k-123");
  });

  it("logs the full path of a request served by a mounted router", async () => {
    await control("POST", "/reset");
    await fetch(`${sim.url}/mounted/inner`);
    const { entries } = (await control("GET", "/log")).body;
    expect(entries.map((e: { path: string }) => e.path)).toEqual(["/v1/mounted/inner"]);
  });

  it("fails exactly the nth call matching a route, and only that one", async () => {
    await control("POST", "/reset");
    await control("PUT", "/faults", {
      rules: [{ method: "POST", path: "^/v1/things$", nth: 2, action: { type: "status", status: 500 } }],
    });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      statuses.push(
        (
          await fetch(`${sim.url}/things`, {
            method: "POST",
            body: "{}",
            headers: { "content-type": "application/json" },
          })
        ).status,
      );
    }
    expect(statuses).toEqual([201, 500, 201]);
    const failed = await fetch(`${sim.url}/things`);
    expect(failed.status).toBe(200);
    expect((await control("GET", "/state")).body.things).toHaveLength(2);
  });

  it("answers 429 with Retry-After in the provider's error shape", async () => {
    await control("POST", "/reset");
    await control("PUT", "/faults", { rules: [{ action: { type: "rate_limit", retryAfterSeconds: 7 } }] });
    const res = await fetch(`${sim.url}/things`);
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("7");
    expect(await res.json()).toEqual({ error: { status: 429, message: "rate limit exceeded (simulated)" } });
  });

  it("resets the connection without an answer", async () => {
    await control("POST", "/reset");
    await control("PUT", "/faults", { rules: [{ nth: 1, action: { type: "reset" } }] });
    await expect(fetch(`${sim.url}/things`)).rejects.toThrow();
    expect((await fetch(`${sim.url}/things`)).status).toBe(200);
  });

  it("draws random faults reproducibly from the seed", async () => {
    const run = async () => {
      await control("POST", "/reset");
      await control("PUT", "/faults", { seed: 9, errorRate: 0.3, rateLimitRate: 0.2 });
      const out: number[] = [];
      for (let i = 0; i < 20; i++) out.push((await fetch(`${sim.url}/things`)).status);
      return out;
    };
    const first = await run();
    expect(first).toEqual(await run());
    expect(first.some((s) => s === 503)).toBe(true);
    expect(first.some((s) => s === 200)).toBe(true);
  });

  it("holds a matching request until released, then serves it", async () => {
    await control("POST", "/reset");
    await control("PUT", "/faults", { rules: [{ method: "POST", nth: 1, action: { type: "hold" } }] });
    let answered = false;
    const pending = fetch(`${sim.url}/things`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "held" }),
    }).then((r) => {
      answered = true;
      return r.status;
    });
    while ((await control("GET", "/held")).body.held < 1) await new Promise((r) => setTimeout(r, 5));
    expect(answered).toBe(false);
    expect((await control("GET", "/state")).body.things).toHaveLength(0);
    expect((await control("POST", "/release")).body).toEqual({ released: 1 });
    expect(await pending).toBe(201);
    expect((await control("GET", "/state")).body.things).toHaveLength(1);
  });

  it("adds latency, and the request log says how much", async () => {
    await control("POST", "/reset");
    await control("PUT", "/faults", { latencyMs: 60 });
    expect((await fetch(`${sim.url}/things`)).status).toBe(200);
    await control("PUT", "/faults", {});
    await fetch(`${sim.url}/things`);
    const entries = (await control("GET", "/log")).body.entries as Array<{ delayedMs?: number }>;
    expect(entries.slice(-2).map((e) => e.delayedMs)).toEqual([60, undefined]);
  });

  // A client killed while the injected latency holds its request: the latency stands for the way to
  // the provider, so the request never arrives; before, the route ran on an empty body (nameless
  // vaults in the crash storm).
  it.each([
    ["the whole body was sent before the client died", true],
    ["the client died halfway through its body", false],
  ])("a request whose client died during the latency: %s", async (_row, whole) => {
    await control("POST", "/reset");
    await control("PUT", "/faults", { latencyMs: 150 });
    const { port } = new URL(sim.url);
    const body = JSON.stringify({ name: "sent" });
    const socket = connect(Number(port), "127.0.0.1");
    await new Promise<void>((resolve) => socket.once("connect", resolve));
    const head = `POST /v1/things HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    socket.write(head + (whole ? body : body.slice(0, 5)));
    await new Promise((r) => setTimeout(r, 40));
    socket.destroy();
    await new Promise((r) => setTimeout(r, 400));
    await control("PUT", "/faults", {});
    const names = ((await control("GET", "/state")).body.things as Thing[]).map((t) => t.name);
    expect(names).toEqual([]);
  });

  it("rejects an invalid fault configuration", async () => {
    expect((await control("PUT", "/faults", { errorRate: 2 })).status).toBe(400);
  });

  it("moves the simulated clock forward only", async () => {
    await control("POST", "/reset");
    const before = ((await (await fetch(`${sim.url}/now`)).json()) as { now: number }).now;
    await control("POST", "/clock", { advance_seconds: 3600 });
    const after = ((await (await fetch(`${sim.url}/now`)).json()) as { now: number }).now;
    expect(after - before).toBeGreaterThanOrEqual(3_600_000);
    expect((await control("POST", "/clock", { advance_ms: -1 })).status).toBe(400);
  });

  it("answers malformed JSON and unknown routes in the provider's error shape", async () => {
    const bad = await fetch(`${sim.url}/things`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{not json",
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: { status: 400, message: "invalid request body" } });
    const missing = await fetch(`${sim.url}/nothing`);
    expect(missing.status).toBe(404);
  });
});
