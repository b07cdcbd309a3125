import { describe, expect, it } from "vitest";
import { forgeWithToolClient } from "../forge-and-mcp.js";

/**
 * What the file and patch tools promise beyond one forge call: downloads are cut at max_bytes and
 * say so, binary comes back as base64, a release asset's redirect is followed only on the forge's
 * API; a description patch is written only when it applies; a webhook delivery is found on a later
 * page.
 */

describe("files, patches and deliveries", () => {
  const t = forgeWithToolClient("files", { FORGE_TOOLSETS: "all", FORGE_MCP_CONFIRM_DESTRUCTIVE: "off" });
  const { raw, call } = t;
  const log = async () =>
    (
      (await (await fetch(`${t.forge.origin}/_sim/log`)).json()) as {
        entries: Array<{ method: string; path: string }>;
      }
    ).entries
      .filter((e) => !e.path.startsWith("/_sim"))
      .map((e) => `${e.method} ${e.path}`);
  const clearLog = () => fetch(`${t.forge.origin}/_sim/log`, { method: "DELETE" });
  const upload = async (filename: string, bytes: Buffer) => {
    const made = await call("upload_markdown", {
      project_id: 1,
      filename,
      content: bytes.toString("base64"),
    });
    return made.url.split("/")[2] as string;
  };
  const description = async (iid: number) =>
    (
      (await (
        await fetch(`${t.forge.apiUrl}/projects/1/issues/${iid}`, {
          headers: { "private-token": "sim-forge-pat" },
        })
      ).json()) as { description: string }
    ).description;

  it("a download is cut at max_bytes and says so; a whole one is not", async () => {
    const text = "line of text\n".repeat(8_000); // 104 000 bytes
    const secret = await upload("big.log", Buffer.from(text));
    const cut = await call("download_attachment", {
      project_id: 1,
      secret,
      filename: "big.log",
      max_bytes: 1000,
    });
    expect(cut).toMatchObject({ bytes_read: 1000, truncated: true, encoding: "utf-8" });
    expect(cut.content).toBe(text.slice(0, 1000));
    const whole = await call("download_attachment", {
      project_id: 1,
      secret,
      filename: "big.log",
      max_bytes: 1024 * 1024,
    });
    expect(whole).toMatchObject({ bytes_read: text.length, truncated: false });
  });

  it("binary comes back as base64, byte for byte", async () => {
    const bytes = Buffer.from([0, 1, 2, 0xfe, 0xff, 0x80, 10]);
    const secret = await upload("blob.bin", bytes);
    const got = await call("download_attachment", { project_id: 1, secret, filename: "blob.bin" });
    expect(got).toMatchObject({ encoding: "base64", truncated: false, content: bytes.toString("base64") });
  });

  it("a release asset stored on the forge's API is fetched through one redirect", async () => {
    const secret = await upload("notes.txt", Buffer.from("release notes\n"));
    await t.forge.seed({
      releases: [{ project: "acme/widgets", tag_name: "v0.8.0", ref: "main" }],
      release_links: [
        {
          project: "acme/widgets",
          tag_name: "v0.8.0",
          name: "notes",
          url: `${t.forge.apiUrl}/projects/1/uploads/${secret}/notes.txt`,
          direct_asset_path: "/notes.txt",
        },
      ],
    });
    await clearLog();
    const got = await call("download_release_asset", {
      project_id: "acme/widgets",
      tag_name: "v0.8.0",
      direct_asset_path: "/notes.txt",
    });
    expect(got).toMatchObject({ encoding: "utf-8", content: "release notes\n" });
    expect(await log()).toEqual([
      "GET /api/v4/projects/acme%2Fwidgets/releases/v0.8.0/downloads/notes.txt",
      `GET /api/v4/projects/1/uploads/${secret}/notes.txt`,
    ]);
  });

  it("a unified diff is applied; a stale one changes nothing; dry_run writes nothing", async () => {
    const before = await description(1);
    const diff = `--- a\n+++ b\n@@ -1 +1,2 @@\n ${before}\n+Seen on Firefox too.\n`;
    await clearLog();
    const dry = await call("update_issue_description_patch", {
      project_id: 1,
      issue_iid: 1,
      patch_type: "unified_diff",
      patch: diff,
      dry_run: true,
    });
    expect(dry).toMatchObject({
      dry_run: true,
      changed: true,
      description: `${before}\nSeen on Firefox too.`,
    });
    expect(await log()).toEqual(["GET /api/v4/projects/1/issues/1"]);
    await call("update_issue_description_patch", {
      project_id: 1,
      issue_iid: 1,
      patch_type: "unified_diff",
      patch: diff,
    });
    expect(await description(1)).toBe(`${before}\nSeen on Firefox too.`);
    // the same diff again no longer applies: refused, nothing written
    await clearLog();
    const stale = await raw("update_issue_description_patch", {
      project_id: 1,
      issue_iid: 1,
      patch_type: "unified_diff",
      patch: `--- a\n+++ b\n@@ -1 +1 @@\n-${before} (old)\n+x\n`,
    });
    expect(stale.isError).toBe(true);
    expect(stale.content[0]!.text).toMatch(/does not apply/);
    expect(await log()).toEqual(["GET /api/v4/projects/1/issues/1"]);
  });

  it("search/replace: a text found twice needs allow_multiple; create_note records the diff", async () => {
    await call("update_issue_description_patch", {
      project_id: 1,
      issue_iid: 2,
      patch_type: "search_replace",
      patch: "<<<<<<< SEARCH\ntoo bright.\n=======\ntoo bright. Too bright.\n>>>>>>> REPLACE",
    });
    const block = "<<<<<<< SEARCH\nright\n=======\nright!\n>>>>>>> REPLACE";
    const twice = await raw("update_issue_description_patch", {
      project_id: 1,
      issue_iid: 2,
      patch_type: "search_replace",
      patch: block,
    });
    expect(twice.content[0]!.text).toMatch(/occurs 2 times/);
    await call("update_issue_description_patch", {
      project_id: 1,
      issue_iid: 2,
      patch_type: "search_replace",
      patch: block,
      allow_multiple: true,
      create_note: true,
    });
    expect(await description(2)).toBe("Dashboards at night are too bright!. Too bright!.");
    const notes = await call("list_issue_notes", { project_id: 1, issue_iid: 2 });
    expect(JSON.stringify(notes)).toMatch(
      /Description updated:[\s\S]*-Dashboards at night are too bright\. Too bright\./,
    );
  });

  it("get_webhook_event finds an older delivery on a later page", async () => {
    await t.forge.seed({
      hooks: [
        {
          project: "acme/widgets",
          url: "https://hooks.example.com/many",
          deliveries: Array.from({ length: 25 }, (_, i) => ({ trigger: `t${i}`, response_status: 200 })),
        },
      ],
    });
    const hooks = await call("list_webhooks", { project_id: 1 });
    const hook = hooks.items.find((h: { url: string }) => h.url.endsWith("/many"));
    const all = [
      ...(await call("list_webhook_events", { project_id: 1, hook_id: hook.id, summary: true })).items,
      ...(await call("list_webhook_events", { project_id: 1, hook_id: hook.id, summary: true, page: 2 }))
        .items,
    ];
    const oldest = all.find((e: { trigger: string }) => e.trigger === "t0");
    await clearLog();
    const got = await call("get_webhook_event", { project_id: 1, hook_id: hook.id, event_id: oldest.id });
    expect(got.trigger).toBe("t0");
    expect((await log()).map((l) => l.replace(/\?.*/, ""))).toEqual([
      `GET /api/v4/projects/1/hooks/${hook.id}/events`,
      `GET /api/v4/projects/1/hooks/${hook.id}/events`,
    ]);
  });
});
