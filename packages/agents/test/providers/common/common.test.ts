import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DeclarationError } from "../../../src/providers/common/errors.js";
import { normalizeMountPath, repositoryMountPath } from "../../../src/providers/common/mount-paths.js";
import {
  logicalName,
  metadataPatch,
  ownerOf,
  userMetadata,
  withOwnership,
} from "../../../src/providers/common/ownership.js";
import { collect, walkAfterId, walkPages } from "../../../src/providers/common/paging.js";
import { pollUntil, WaitTimeoutError } from "../../../src/providers/common/wait.js";
import { createHttpClient } from "../../../src/providers/http.js";

describe("mount paths (spec: Session resources)", () => {
  it.each([
    ["relative path resolves under the root (/data)", "/data", "in/x.csv", "/data/in/x.csv"],
    ["relative path resolves under the root (/mnt)", "/mnt", "./x.csv", "/mnt/x.csv"],
    ["absolute path under the root passes unchanged", "/data", "/data/x", "/data/x"],
  ])("%s", (_rule, root, path, expected) => {
    expect(normalizeMountPath(root, path)).toBe(expected);
  });
  it.each([
    ["absolute path under another root is rejected, not rewritten", "/data", "/mnt/x"],
    ["the root itself is not a mount path", "/data", "/data/"],
    ["a relative path may not escape the root", "/data", "../etc"],
    ["a prefix that only looks like the root", "/data", "/database/x"],
  ])("%s", (_rule, root, path) => {
    expect(() => normalizeMountPath(root, path)).toThrow(DeclarationError);
  });
  it.each([
    ["https URL with .git", "https://github.com/acme/widgets.git", "/data/workspace/widgets"],
    ["URL with trailing slash", "https://github.com/acme/widgets/", "/data/workspace/widgets"],
    ["scp-style URL", "git@github.com:acme/tools.git", "/data/workspace/tools"],
    [
      "URL without a name (as validate places it)",
      "https://github.com/acme/.git",
      "/data/workspace/repository",
    ],
  ])("repository default mount: %s", (_rule, url, expected) => {
    expect(repositoryMountPath("/data", url)).toBe(expected);
  });
});

describe("ownership metadata", () => {
  const owner = { project: "demo", resource: 'provider_b.agents["writer"]' };
  it("injects both keys; user keys win", () => {
    expect(withOwnership({ "agents.project": "mine", team: "a" }, owner)).toEqual({
      "agents.project": "mine",
      "agents.resource": owner.resource,
      team: "a",
    });
  });
  it("reads the owner and strips agents.* for export", () => {
    const m = withOwnership({ team: "a" }, owner);
    expect(ownerOf(m)).toEqual(owner);
    expect(userMetadata(m)).toEqual({ team: "a" });
  });
  it("tombstones dropped user keys, leaves agents.* alone", () => {
    expect(metadataPatch({ team: "a", old: "x", "agents.project": "p" }, { team: "b" })).toEqual({
      team: "b",
      old: null,
    });
    expect(metadataPatch({ old: "x" }, {}, "")).toEqual({ old: "" });
  });
  it("derives the logical name from the address", () => {
    expect(logicalName(owner)).toBe("writer");
  });
});

describe("pagination walkers over a real socket", () => {
  let server: Server;
  let base: string;
  const items = Array.from({ length: 250 }, (_, i) => ({ id: `x_${String(i).padStart(3, "0")}` }));
  beforeAll(async () => {
    server = createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://h");
      const limit = Number(url.searchParams.get("limit"));
      res.setHeader("content-type", "application/json");
      if (url.pathname === "/pages") {
        const page = Number(url.searchParams.get("page") ?? 0);
        const data = items.slice(page * limit, (page + 1) * limit);
        res.end(
          JSON.stringify({ data, next_page: (page + 1) * limit < items.length ? String(page + 1) : null }),
        );
      } else if (url.pathname === "/after") {
        const after = url.searchParams.get("after_id");
        const start = after ? items.findIndex((i) => i.id === after) + 1 : 0;
        const data = items.slice(start, start + limit);
        res.end(
          JSON.stringify({ data, has_more: start + limit < items.length, last_id: data.at(-1)?.id ?? null }),
        );
      } else if (url.pathname === "/loop") {
        res.end(JSON.stringify({ data: [{ id: "same" }], next_page: "again" }));
      } else if (url.pathname === "/loop-after") {
        res.end(JSON.stringify({ data: [{ id: "same" }], has_more: true, last_id: "same" }));
      }
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  const http = () => createHttpClient({ provider: "t", baseUrl: base });
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

describe("bounded, visible waits", () => {
  const policy = { initialMs: 10, factor: 2, maxDelayMs: 40, timeoutMs: 100 };
  it("announces once and returns when done", async () => {
    const notes: string[] = [];
    let n = 0;
    let clock = 0;
    const value = await pollUntil({
      what: "scan",
      policy,
      read: async () => ++n,
      classify: (v) => (v >= 3 ? "done" : "pending"),
      onWait: (m) => notes.push(m),
      sleep: async (ms) => {
        clock += ms;
      },
      now: () => clock,
    });
    expect(value).toBe(3);
    expect(notes).toEqual(["waiting for scan (up to 0 s)"]);
  });
  it("times out with a message that says what is pending", async () => {
    let clock = 0;
    await expect(
      pollUntil({
        what: "scan of skill s",
        policy,
        read: async () => 0,
        classify: () => "pending",
        sleep: async (ms) => {
          clock += ms;
        },
        now: () => clock,
      }),
    ).rejects.toThrow(WaitTimeoutError);
  });
  it("a terminal failure stops the wait", async () => {
    await expect(
      pollUntil({
        what: "audit",
        policy,
        read: async () => "rejected",
        classify: () => ({ failed: "rejected" }),
      }),
    ).rejects.toThrow(/audit failed: rejected/);
  });
});
