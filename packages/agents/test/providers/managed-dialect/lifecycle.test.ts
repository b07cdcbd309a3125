// create → read → update → read shows the change → findOwned finds it → remove → read is gone,
// per kind per provider, over real HTTP against the provider_c and provider_d simulators.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Kind, PriorState, Spec, UploadIntent } from "../../../src/providers/types.js";
import { expectNoDrift, SIMULATED, SimWorld } from "./sim-world.js";

interface Case {
  kind: Kind;
  name: string;
  spec: (w: SimWorld) => Promise<Spec> | Spec;
  changed: (w: SimWorld) => Promise<Spec> | Spec;
  /** Key whose new value the second read must show. */
  shows?: string;
}

const CASES: Case[] = [
  {
    kind: "environments",
    name: "Dev Box",
    spec: () => ({
      config: {
        type: "cloud",
        networking: { type: "limited", allowed_hosts: ["pypi.org"], allow_package_managers: true },
        packages: { pip: ["requests"] },
      },
      metadata: { team: "a", drop: "me" },
    }),
    changed: () => ({
      description: "second",
      config: { type: "cloud", packages: { pip: ["requests"], npm: ["left-pad"] } },
      metadata: { team: "b" },
    }),
    shows: "config",
  },
  {
    kind: "vaults",
    name: "keys",
    spec: () => ({
      credentials: [
        {
          name: "forge",
          type: "static_bearer",
          mcp_server_url: "https://mcp.example/mcp",
          access_token: "tok-1",
        },
        { name: "gh", type: "environment_variable", secret_name: "GH_TOKEN", secret_value: "sec-1" },
      ],
    }),
    changed: () => ({
      display_name: "Keys v2",
      credentials: [
        {
          name: "forge",
          type: "static_bearer",
          mcp_server_url: "https://mcp.example/v2",
          access_token: "tok-2",
        },
        {
          name: "npm",
          type: "environment_variable",
          secret_name: "NPM_TOKEN",
          secret_value: "sec-2",
          networking: { type: "limited", allowed_hosts: ["registry.npmjs.org"] },
        },
      ],
    }),
    shows: "credentials",
  },
  {
    kind: "memory_stores",
    name: "notes",
    spec: () => ({
      description: "team notes",
      entries: [
        { key: "style.md", content: "short" },
        { key: "/a/b.md", content: "B" },
      ],
    }),
    changed: () => ({
      description: "team notes v2",
      entries: [
        { key: "style.md", content: "shorter" },
        { key: "/a/b.md", content: "B" },
        { key: "new.md", content: "N" },
      ],
    }),
    shows: "entries",
  },
  {
    kind: "skills",
    name: "pdf",
    spec: async (w) => {
      await w.writeFile("skills/pdf/SKILL.md", "---\nname: pdf-tools\ndescription: PDFs\n---\nUse it.\n");
      await w.writeFile("skills/pdf/scripts/run.sh", "echo one\n");
      return { source: "skills/pdf" };
    },
    changed: async (w) => {
      await w.writeFile("skills/pdf/scripts/run.sh", "echo two\n");
      return { source: "skills/pdf" };
    },
  },
  {
    kind: "files",
    name: "data",
    spec: async (w) => {
      await w.writeFile("data/input.csv", "a,b\n1,2\n");
      return { source: "data/input.csv" };
    },
    changed: async (w) => {
      await w.writeFile("data/input.csv", "a,b\n3,4\n");
      return { source: "data/input.csv" };
    },
  },
];

for (const provider of SIMULATED) {
  describe(`${provider} lifecycle per kind`, () => {
    let w: SimWorld;
    beforeAll(async () => {
      w = await SimWorld.start(provider);
    });
    afterAll(() => w.close());

    for (const c of CASES) {
      it(`${c.kind}: create → read → change → read → findOwned → remove → gone`, async () => {
        const handler = w.handler(c.kind);
        // Uploads are journaled as apply journals them: files are found again only through them.
        const journaled: UploadIntent[] = [];
        const ctx = {
          ...w.ctx(c.kind, c.name),
          journalUpload: async (upload: UploadIntent) => {
            journaled.push(upload);
          },
          leftoverUploads: journaled,
        };
        const first = await w.apply(c.kind, c.name, await c.spec(w));
        expectNoDrift(await handler.read(ctx, first.id, first), first.spec);

        const declared2 = await c.changed(w);
        const desired2 = await w.desired(c.kind, declared2);
        let current: PriorState;
        if (handler.update) {
          const updated = await handler.update(ctx, first.id, declared2, first);
          expect(updated.id).toBe(first.id);
          current = { id: first.id, spec: desired2, ...(updated.extra ? { extra: updated.extra } : {}) };
        } else {
          // No in-place update: the engine replaces (new first when createBeforeDestroy).
          const replacement = await handler.create(ctx, declared2);
          expect(replacement.id).not.toBe(first.id);
          await handler.remove(ctx, first.id, first);
          current = {
            id: replacement.id,
            spec: desired2,
            ...(replacement.extra ? { extra: replacement.extra } : {}),
          };
        }
        const second = await handler.read(ctx, current.id, current);
        expectNoDrift(second, desired2);
        if (c.shows && second !== "gone") expect(second.spec[c.shows]).toEqual(desired2[c.shows]);

        if (handler.findOwned) {
          const found = await handler.findOwned(ctx, ctx.owner);
          expect(found?.id).toBe(current.id);
        }
        await handler.remove(ctx, current.id, current);
        if (provider === "provider_d" && c.kind === "skills") {
          // provider_d has no skill deletion: the id is released with a warning, the skill stays.
          expect(w.warnings.at(-1)).toMatch(/cannot delete skills/);
          return;
        }
        expect(await handler.read(ctx, current.id, current)).toBe("gone");
        await handler.remove(ctx, current.id, current); // already gone = success
        if (handler.findOwned) expect(await handler.findOwned(ctx, ctx.owner)).toBeUndefined();
      });
    }
  });
}

describe("skills and files: only what reaches the provider decides a change", () => {
  let w: SimWorld;
  beforeAll(async () => {
    w = await SimWorld.start("provider_d");
  });
  afterAll(() => w.close());

  it("a moved directory or a new description/label is no change; an edited byte is", async () => {
    await w.writeFile("a/pdf/SKILL.md", "---\nname: pdf-tools\n---\nx\n");
    await w.writeFile("b/pdf/SKILL.md", "---\nname: pdf-tools\n---\nx\n");
    const first = await w.desired("skills", { source: "a/pdf" });
    expect(await w.desired("skills", { source: "b/pdf", description: "new words", version: "2" })).toEqual(
      first,
    );
    await w.writeFile("b/pdf/SKILL.md", "---\nname: pdf-tools\n---\ny\n");
    expect(await w.desired("skills", { source: "b/pdf" })).not.toEqual(first);

    await w.writeFile("one/data.csv", "1");
    await w.writeFile("two/data.csv", "1");
    const file = await w.desired("files", { source: "one/data.csv" });
    expect(await w.desired("files", { source: "two/data.csv", name: "label" })).toEqual(file);
    expect(await w.desired("files", { source: "two/data.csv", purpose: "user_data" })).not.toEqual(file);
  });
});
