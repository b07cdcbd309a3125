import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createExpressServer } from "../../src/core/express-server.js";

// The server must hand Express objects that already have the app's prototypes (so Express never
// re-parents them), and everything the simulators use from Express must still work on them.
const app = express();
app.set("query parser", "extended");
app.use(express.json());
app.get("/items/:id", (req, res) => {
  res.set("x-item", req.params.id).json({
    id: req.params.id,
    query: req.query,
    agent: req.get("user-agent") ?? null,
    path: req.path,
    sameApp: req.app === app && res.app === app,
    locals: typeof res.locals,
  });
});
app.post("/items", (req, res) => {
  res.status(201).json({ body: req.body });
});
app.get("/text", (_req, res) => {
  res.type("text/plain").send("plain");
});
app.get("/moved", (_req, res) => {
  res.redirect(302, "/text");
});

let server: Server;
let origin: string;
const bornWithAppPrototypes: boolean[] = [];
beforeAll(async () => {
  server = createExpressServer(app);
  // Runs before Express's own listener: what Node built, before Express could touch it.
  server.prependListener("request", (req: IncomingMessage, res: ServerResponse) => {
    bornWithAppPrototypes.push(
      Object.getPrototypeOf(req) === app.request && Object.getPrototypeOf(res) === app.response,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
});

describe("createExpressServer", () => {
  it("creates requests and responses that already carry the app's prototypes", async () => {
    bornWithAppPrototypes.length = 0;
    await (await fetch(`${origin}/text`)).text();
    await (await fetch(`${origin}/items/1`)).text();
    expect(bornWithAppPrototypes).toEqual([true, true]);
  });

  it("keeps Express's request and response API: params, query, headers, locals, status, json", async () => {
    const res = await fetch(`${origin}/items/it%201?a[b]=c&n=1`, { headers: { "user-agent": "t/1" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-item")).toBe("it 1");
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(await res.json()).toEqual({
      id: "it 1",
      query: { a: { b: "c" }, n: "1" },
      agent: "t/1",
      path: "/items/it%201",
      sameApp: true,
      locals: "object",
    });
  });

  it("parses JSON bodies and answers with a chosen status", async () => {
    const res = await fetch(`${origin}/items`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "x" }),
    });
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ body: { name: "x" } });
  });

  it("sends typed text, redirects, and answers unknown routes with Express's 404", async () => {
    const text = await fetch(`${origin}/text`);
    expect(text.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(await text.text()).toBe("plain");
    const moved = await fetch(`${origin}/moved`, { redirect: "manual" });
    expect(moved.status).toBe(302);
    expect(moved.headers.get("location")).toBe("/text");
    expect((await fetch(`${origin}/nowhere`)).status).toBe(404);
  });
});
