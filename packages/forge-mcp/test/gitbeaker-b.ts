import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "vitest";
import { done, has, type Row, row, W } from "./gitbeaker-rows.js";

/**
 * gitbeaker.test.ts rows for the endpoints of the issue extras, uploads and release downloads, group
 * wiki, group extras, code search, webhook and dependency proxy tools. A row may make other
 * (successful) requests first; its last one is its endpoint.
 */

/** Search answers in the blobs scope (gitbeaker's BlobSchema): a file's matching lines. */
const blobs = (x: any[]) =>
  expect(x).toEqual(
    expect.arrayContaining([
      expect.objectContaining({
        path: "src/widget.ts",
        ref: "main",
        project_id: 1,
        data: expect.stringContaining("render"),
      }),
    ]),
  );

/**
 * An iteration, a project webhook, a signed tag and
 * a release asset link on v1.4.0 (the release itself is made by its row) whose URL is `assetUrl`.
 */
export const beakerSeedB = (assetUrl: string) => ({
  iterations: [{ group: "acme", title: "Sprint 1", start_date: "2026-11-01", due_date: "2026-11-30" }],
  hooks: [{ project: W, url: "https://hooks.example.org/widgets", events: { issues_events: true } }],
  tag_signatures: [{ project: W, tag_name: "v1.4.0", signature_type: "X509" }],
  release_links: [
    { project: W, tag_name: "v1.4.0", name: "binary", url: assetUrl, direct_asset_path: "/bin/widgets" },
  ],
});

/** The server a release asset link points at (GitLab answers an asset download with a redirect). */
export async function assetServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((_req, res) => res.end("widgets-binary"));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/widgets`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const GRAPHQL = "gitbeaker is a REST client (this tool calls GitLab's GraphQL API)";
export const NOT_IN_GITBEAKER_B: Record<string, string> = {
  ...Object.fromEntries(
    [
      "Query.users",
      "Project.workItems",
      "workItemCreate",
      "workItemUpdate",
      "workItemConvert",
      "issueMove",
      "WorkItemWidgetNotes.discussions",
      "createNote",
      "Project.workItemTypes",
      "WorkItemWidgetDefinitionCustomFields",
      "Project.incidentManagementTimelineEvents",
      "timelineEventCreate",
      "Project.vulnerabilities",
      "Query.vulnerability",
      "vulnerabilityConfirm",
      "vulnerabilityDismiss",
      "Group.dependencyProxySetting",
      "updateDependencyProxySettings",
      "Group.dependencyProxyBlobs",
    ].map((op) => [`POST /api/graphql (${op})`, GRAPHQL]),
  ),
  "GET /projects/:id/issues/:iid/links/:issue_link_id":
    "gitbeaker 43's IssueLinks has all, create and remove, no show (gitbeaker-sim.test.ts drives it through gitbeaker's requester)",
  "GET /projects/:id/hooks/:hook_id/events (/groups/:id/…)":
    "gitbeaker 43's ProjectHooks and GroupHooks have no method for a hook's events",
  "DELETE /groups/:id/dependency_proxy/cache":
    "gitbeaker 43.8's DependencyProxy.remove sends POST, where GitLab documents DELETE (the simulator answers 404 as GitLab would)",
};

export const beakerRowsB: Row[] = [
  row(
    "PUT /projects/:id/issues/:iid (after GET; POST …/notes with create_note)",
    (gl) => gl.Issues.edit(W, 1, { description: "Edited by gitbeaker" }),
    (i) => {
      expect(i.iid).toBe(1);
      expect(i.description).toBe("Edited by gitbeaker");
    },
  ),
  row(
    "POST /projects/:id/uploads",
    (gl) =>
      gl.Projects.uploadForReference(W, {
        content: new Blob(["shot"], { type: "image/png" }),
        filename: "shot.png",
      }),
    (u, c) => {
      expect(u.markdown).toBe(`![shot](${u.url})`);
      [, c.secret, c.filename] = /^\/uploads\/([^/]+)\/(.+)$/.exec(u.url)!;
    },
  ),
  row(
    "GET /projects/:id/uploads/:secret/:filename",
    (gl, c) => gl.ProjectMarkdownUploads.download(W, c.secret, c.filename),
    async (b: Blob) => expect(await b.text()).toBe("shot"),
  ),
  row(
    "POST /groups",
    (gl) => gl.Groups.create("Beaker Group", "beaker-group"),
    (g) => expect(g.full_path).toBe("beaker-group"),
  ),
  row("GET /groups/:id/iterations", (gl) => gl.GroupIterations.all("acme"), has("title", "Sprint 1")),
  row(
    "GET /projects/:id/repository/tags/:tag_name/signature",
    (gl) => gl.Tags.showSignature(W, "v1.4.0"),
    (s) => {
      expect(s.signature_type).toBe("X509");
      expect(s.x509_certificate.x509_issuer.subject).toBeTypeOf("string");
    },
  ),
  row(
    "POST /projects/:id/releases/:tag_name/evidence",
    async (gl) => {
      await gl.ProjectReleases.create(W, {
        tag_name: "v1.4.0",
        name: "1.4.0",
        description: "Widgets",
      } as never);
      return gl.ProjectReleases.createEvidence(W, "v1.4.0");
    },
    (e) => expect(e).toBe(true),
  ),
  row(
    "GET /projects/:id/releases/:tag_name/downloads/*direct_asset_path",
    (gl) => gl.ProjectReleases.download(W, "v1.4.0", "bin/widgets"),
    async (b: Blob) => expect(await b.text()).toBe("widgets-binary"),
  ),
  row(
    "POST /groups/:id/wikis",
    (gl) => gl.GroupWikis.create("acme", "Group start", "Team page"),
    (w) => expect(w.slug).toBe("Team-page"),
  ),
  row("GET /groups/:id/wikis", (gl) => gl.GroupWikis.all("acme"), has("slug", "Team-page")),
  row(
    "GET /groups/:id/wikis/:slug",
    (gl) => gl.GroupWikis.show("acme", "Team-page"),
    (w) => expect(w.content).toBe("Group start"),
  ),
  row(
    "PUT /groups/:id/wikis/:slug",
    (gl) => gl.GroupWikis.edit("acme", "Team-page", { content: "Moved" }),
    (w) => expect(w.content).toBe("Moved"),
  ),
  row("DELETE /groups/:id/wikis/:slug", (gl) => gl.GroupWikis.remove("acme", "Team-page"), done),
  row("GET /search?scope=blobs", (gl) => gl.Search.all("blobs", "render"), blobs),
  row(
    "GET /projects/:id/search?scope=blobs",
    (gl) => gl.Search.all("blobs", "render", { projectId: W }),
    blobs,
  ),
  row(
    "GET /groups/:id/search?scope=blobs",
    (gl) => gl.Search.all("blobs", "render", { groupId: "acme" }),
    blobs,
  ),
  row(
    "GET /projects/:id/hooks (/groups/:id/hooks)",
    (gl) => gl.ProjectHooks.all(W),
    has("url", "https://hooks.example.org/widgets"),
  ),
];
