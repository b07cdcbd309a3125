// The list walkers against a loopback server, including the ways it misbehaves that the simulators
// never do.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collect, findFirst, listAll, walkAfterId, walkPages } from "../../../src/providers/common/paging.js";
import { createHttpClient } from "../../../src/providers/http.js";

let server: Server;
let base: string;
const seen: string[] = [];
const items = Array.from({ length: 250 }, (_, i) => ({ id: `x_${String(i).padStart(3, "0")}` }));
const http = () => createHttpClient({ provider: "t", baseUrl: base });

/** Each path one way of paging a list, or of getting it wrong. */
const ROUTES: Record<string, (url: URL) => unknown> = {
  "/pages": (url) => {
    const limit = Number(url.searchParams.get("limit"));
    const page = Number(url.searchParams.get("page") ?? 0);
    const data = items.slice(page * limit, (page + 1) * limit);
    return { data, next_page: (page + 1) * limit < items.length ? String(page + 1) : null };
  },
  "/after": (url) => {
    const limit = Number(url.searchParams.get("limit"));
    const after = url.searchParams.get("after_id");
    const start = after ? items.findIndex((i) => i.id === after) + 1 : 0;
    const data = items.slice(start, start + limit);
    return { data, has_more: start + limit < items.length, last_id: data.at(-1)?.id ?? null };
  },
  // pages "", "p2", "p3", then next_page null
  "/three": (url) => {
    const page = url.searchParams.get("page");
    return { data: [{ id: page ?? "p1" }], next_page: page === null ? "p2" : page === "p2" ? "p3" : null };
  },
  "/loop": () => ({ data: [{ id: "same" }], next_page: "again" }),
  "/loop-after": () => ({ data: [{ id: "same" }], has_more: true, last_id: "same" }),
};

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://h");
    seen.push(url.search);
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify(ROUTES[url.pathname]?.(url) ?? {}));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("limit + page → {data, next_page}", () => {
  it("follows next_page until it is null, sending limit and the cursor", async () => {
    seen.length = 0;
    const found = await listAll<{ id: string }>(http(), "/three", { pageSize: 100 });
    expect(found.map((i) => i.id)).toEqual(["p1", "p2", "p3"]);
    expect(seen).toEqual(["?limit=100", "?limit=100&page=p2", "?limit=100&page=p3"]);
  });
  it("stops at the first match", async () => {
    seen.length = 0;
    expect(await findFirst<{ id: string }>(http(), "/three", (i) => i.id === "p2")).toEqual({ id: "p2" });
    expect(seen).toHaveLength(2);
  });
  it("a cursor answered twice is an error, not an endless walk", async () => {
    await expect(listAll(http(), "/loop")).rejects.toThrow(/page cursor "again" twice/);
  });
});

describe("pagination walkers", () => {
  it("page/next_page walks every page (no has_more)", async () => {
    expect((await collect(walkPages<{ id: string }>(http(), "/pages"))).map((i) => i.id)).toEqual(
      items.map((i) => i.id),
    );
  });
  it("after_id/has_more/last_id walks every page", async () => {
    expect((await collect(walkAfterId<{ id: string }>(http(), "/after"))).length).toBe(250);
  });
  it.each([
    ["page/next_page", () => walkPages(http(), "/loop")],
    ["after_id/last_id", () => walkAfterId(http(), "/loop-after")],
  ])(
    "%s: a repeated cursor is an error naming the list, never a silently short result",
    async (_style, walk) => {
      await expect(collect(walk())).rejects.toThrow(/\/loop.*returned the page cursor "(again|same)" twice/);
    },
  );
});
