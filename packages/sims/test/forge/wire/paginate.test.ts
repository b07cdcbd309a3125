import { beforeEach, describe, expect, it } from "vitest";
import { freshForge } from "../helpers.js";

// Offset pagination headers and Link (gitlab-wire.md "Pagination"), faults in GitLab's error shape,
// and seeding from a state dump.
const { f, sim } = freshForge();

const groups = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ path: `g${String(i).padStart(5, "0")}`, visibility: "public" }));

function links(header: string | null): Record<string, URL> {
  const out: Record<string, URL> = {};
  for (const part of (header ?? "").split(",")) {
    const m = /<([^>]+)>;\s*rel="(\w+)"/.exec(part.trim());
    if (m) out[m[2]!] = new URL(m[1]!);
  }
  return out;
}

describe("offset pagination", () => {
  beforeEach(async () => {
    await f.control("POST", "/seed", { groups: groups(45) });
  });

  it.each([
    // query, x-page, x-per-page, x-next-page, x-prev-page, x-total-pages, rows, Link rels
    ["", "1", "20", "2", "", "3", 20, ["next", "first", "last"]],
    ["?page=2", "2", "20", "3", "1", "3", 20, ["prev", "next", "first", "last"]],
    ["?page=3", "3", "20", "", "2", "3", 8, ["prev", "first", "last"]],
    ["?per_page=100", "1", "100", "", "", "1", 48, ["first", "last"]],
    ["?per_page=500", "1", "100", "", "", "1", 48, ["first", "last"]],
    ["?per_page=0&page=-1", "1", "20", "2", "", "3", 20, ["next", "first", "last"]],
    ["?per_page=10&page=9", "9", "10", "", "5", "5", 0, ["prev", "first", "last"]],
  ])("GET /groups%s", async (query, page, perPage, next, prev, totalPages, rows, rels) => {
    const sep = query ? "&" : "?";
    const res = await f.api(`/groups${query}${sep}all_available=true`);
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(rows);
    expect(res.headers.get("x-page")).toBe(page);
    expect(res.headers.get("x-per-page")).toBe(perPage);
    expect(res.headers.get("x-next-page")).toBe(next);
    expect(res.headers.get("x-prev-page")).toBe(prev);
    expect(res.headers.get("x-total")).toBe("48");
    expect(res.headers.get("x-total-pages")).toBe(totalPages);
    const l = links(res.headers.get("link"));
    expect(Object.keys(l)).toEqual(rels);
    for (const url of Object.values(l)) {
      expect(url.origin).toBe(sim.origin);
      expect(url.pathname).toBe("/api/v4/groups");
      expect(url.searchParams.get("all_available")).toBe("true");
      expect(url.searchParams.get("per_page")).toBe(perPage);
    }
    if (l.next) expect(l.next.searchParams.get("page")).toBe(next);
    if (l.last) expect(l.last.searchParams.get("page")).toBe(totalPages);
  });

  it("walks every page by following Link rel=next without repeats", async () => {
    let url: string | undefined = `${sim.url}/groups?all_available=true&per_page=7`;
    const seen: number[] = [];
    while (url) {
      const res: Response = await fetch(url, { headers: { "private-token": "sim-forge-pat" } });
      seen.push(...((await res.json()) as { id: number }[]).map((g) => g.id));
      url = links(res.headers.get("link")).next?.toString();
    }
    expect(seen).toHaveLength(48);
    expect(new Set(seen).size).toBe(48);
  });
});

describe("keyset pagination", () => {
  const walk = async (first: string, key: "id" | "path") => {
    const pages: string[][] = [];
    let url: string | undefined = `${sim.url}${first}`;
    while (url) {
      const res: Response = await fetch(url, { headers: { "private-token": "sim-forge-pat" } });
      expect(res.status).toBe(200);
      expect(res.headers.get("x-total")).toBeNull();
      expect(res.headers.get("x-page")).toBeNull();
      const rows = (await res.json()) as Record<string, unknown>[];
      pages.push(rows.map((r) => String(r[key])));
      const link = links(res.headers.get("link"));
      expect(Object.keys(link).every((rel) => rel === "next")).toBe(true);
      url = link.next?.toString();
    }
    return pages;
  };

  it("pages projects by id with id_after and only a rel=next link", async () => {
    const pages = await walk("/projects?pagination=keyset&order_by=id&sort=asc&per_page=3", "id");
    expect(pages).toEqual([["1", "2", "3"], ["4"]]);
    const desc = await walk("/projects?pagination=keyset&order_by=id&sort=desc&per_page=3", "id");
    expect(desc).toEqual([["4", "3", "2"], ["1"]]);
  });

  it("refuses keyset pagination of projects ordered by anything but id (405)", async () => {
    const res = await f.api("/projects?pagination=keyset&order_by=name");
    expect(res.status).toBe(405);
    expect(res.body).toEqual({ message: "Keyset pagination is not yet available for this type of request" });
  });

  it("pages a repository tree with page_token", async () => {
    const pages = await walk("/projects/1/repository/tree?pagination=keyset&per_page=2", "path");
    expect(pages).toEqual([["docs", "src"], [".gitlab-ci.yml", "README.md"], ["package.json"]]);
  });
});

describe("large collections", () => {
  it("omits x-total, x-total-pages and rel=last above 10,000 rows", async () => {
    await f.control("POST", "/seed", { groups: groups(10_001) });
    const res = await f.api("/groups?all_available=true&per_page=100&page=2");
    expect(res.body).toHaveLength(100);
    expect(res.headers.get("x-total")).toBeNull();
    expect(res.headers.get("x-total-pages")).toBeNull();
    expect(res.headers.get("x-next-page")).toBe("3");
    expect(Object.keys(links(res.headers.get("link")))).toEqual(["prev", "next", "first"]);
  });
});

describe("faults and errors in GitLab's shape", () => {
  it("answers unknown API routes with {error: '404 Not Found'}", async () => {
    const res = await f.api("/nope");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "404 Not Found" });
  });

  it("injects 429 with Retry-After and 503 with {message}", async () => {
    await f.control("PUT", "/faults", {
      rules: [{ path: "^/api/v4/projects$", nth: 1, action: { type: "rate_limit", retryAfterSeconds: 3 } }],
    });
    const limited = await f.api("/projects");
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("3");
    await f.control("PUT", "/faults", {
      rules: [{ path: "^/api/v4/projects$", nth: 1, action: { type: "status", status: 503 } }],
    });
    const down = await f.api("/projects");
    expect(down.status).toBe(503);
    expect(down.body).toEqual({ message: "503 Service Unavailable" });
    expect((await f.api("/projects")).status).toBe(200);
  });
});

describe("seed and state", () => {
  it("replays a state dump into a fresh simulator (replace: true)", async () => {
    await f.api("/projects/1/issues", { method: "POST", body: JSON.stringify({ title: "Persisted" }) });
    const dump = (await f.control("GET", "/state")).body;
    await f.control("POST", "/reset");
    const seeded = await f.control("POST", "/seed", {
      replace: true,
      groups: dump.groups,
      projects: dump.projects,
      issues: dump.issues,
      merge_requests: dump.merge_requests,
      pipelines: dump.pipelines,
    });
    expect(seeded.status).toBe(200);
    const after = (await f.control("GET", "/state")).body;
    for (const key of ["groups", "projects", "issues", "merge_requests", "pipelines"]) {
      expect(after[key]).toEqual(dump[key]);
    }
    expect((await f.api("/projects/1/issues?search=Persisted")).body).toHaveLength(1);
  });

  it("seeds a project from files and branches, then serves it", async () => {
    const res = await f.control("POST", "/seed", {
      projects: [
        {
          namespace: "carol",
          path: "notes",
          visibility: "private",
          files: { "a.txt": "one\n" },
          branches: { edit: { files: { "a.txt": "two\n", "b.txt": "new\n" } } },
        },
      ],
      merge_requests: [{ project: "carol/notes", source_branch: "edit", title: "Edit", author: "carol" }],
    });
    expect(res.status).toBe(200);
    const carol = { headers: { "private-token": "sim-forge-pat-carol" } };
    const mr = (await f.api("/projects/carol%2Fnotes/merge_requests/1/changes", carol)).body;
    expect(mr.changes.map((c: any) => c.new_path)).toEqual(["a.txt", "b.txt"]);
    expect(mr.changes[0].diff).toBe("@@ -1,1 +1,1 @@\n-one\n+two\n");
    expect(
      (await f.api("/projects/carol%2Fnotes", { headers: { "private-token": "sim-forge-pat-dave" } })).status,
    ).toBe(404);
  });

  it("refuses a seed that names an unknown user, with the reason, and applies none of it", async () => {
    const res = await f.control("POST", "/seed", {
      users: [{ username: "erin" }],
      issues: [
        { project: "acme/widgets", title: "fine" },
        { project: "acme/widgets", title: "x", author: "ghost" },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain("unknown user ghost");
    const state = (await f.control("GET", "/state")).body;
    expect(state.issues.map((i: any) => i.title)).not.toContain("fine");
    expect(state.users.map((u: any) => u.username)).not.toContain("erin");
  });
});
