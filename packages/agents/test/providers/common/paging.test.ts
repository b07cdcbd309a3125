// The list walker against a loopback server that misbehaves in ways the simulators never do.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findFirst, listAll } from "../../../src/providers/common/paging.js";
import { createHttpClient } from "../../../src/providers/http.js";

let server: Server;
let base: string;
const seen: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    seen.push(url.search);
    const page = url.searchParams.get("page");
    res.setHeader("content-type", "application/json");
    if (url.pathname === "/loop") return res.end(JSON.stringify({ data: [{ id: "x" }], next_page: "same" }));
    // /three: pages "", "p2", "p3" then next_page null
    const next = page === null ? "p2" : page === "p2" ? "p3" : null;
    res.end(JSON.stringify({ data: [{ id: page ?? "p1" }], next_page: next }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("limit + page → {data, next_page}", () => {
  it("follows next_page until it is null, sending limit and the cursor", async () => {
    seen.length = 0;
    const http = createHttpClient({ provider: "t", baseUrl: base });
    const items = await listAll<{ id: string }>(http, "/three", { pageSize: 100 });
    expect(items.map((i) => i.id)).toEqual(["p1", "p2", "p3"]);
    expect(seen).toEqual(["?limit=100", "?limit=100&page=p2", "?limit=100&page=p3"]);
  });
  it("stops at the first match", async () => {
    seen.length = 0;
    const http = createHttpClient({ provider: "t", baseUrl: base });
    expect(await findFirst<{ id: string }>(http, "/three", (i) => i.id === "p2")).toEqual({ id: "p2" });
    expect(seen).toHaveLength(2);
  });
  it("a cursor answered twice is an error, not an endless walk", async () => {
    const http = createHttpClient({ provider: "t", baseUrl: base });
    await expect(listAll(http, "/loop")).rejects.toThrow(/page cursor "same" twice/);
  });
});
