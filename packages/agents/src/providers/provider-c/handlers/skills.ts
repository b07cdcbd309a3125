// provider_c skills: multipart upload with one `files[]` part per file, named
// `<skill name>/<relative path>`; a content change uploads a new version of the same skill.

import { logicalNameOf } from "../../../model/address.js";
import { str } from "../../common/handler-kit.js";
import { readSkill, type SkillBundle } from "../../common/local-files.js";
import { findFirst, listAll } from "../../common/paging.js";
import { getOrGone, idOf, ignoreGone } from "../../managed-dialect/remote.js";
import { skillDesired, skillOrigin } from "../../managed-dialect/skill.js";
import type { Json } from "../../managed-dialect/spec.js";
import type { HandlerContext, KindHandler, Owner, RemoteObject, Spec } from "../../types.js";
import { UnforeseeableError } from "../../unforeseeable.js";
import { PAGE_SIZE, parseSkillOwnerTag, skillOwnerTag } from "../wire-decisions.js";

function skillForm(bundle: SkillBundle, displayName?: string): FormData {
  const form = new FormData();
  if (displayName) form.append("display_name", displayName);
  for (const file of bundle.files)
    form.append("files[]", new Blob([file.bytes as Uint8Array<ArrayBuffer>]), `${bundle.name}/${file.path}`);
  return form;
}

function displayNameOf(remote: Json): string | undefined {
  return str(remote.display_name) ?? str(remote.display_title);
}

function toRemote(remote: Json, spec: Json | undefined): RemoteObject {
  const owner = parseSkillOwnerTag(displayNameOf(remote) ?? "");
  return {
    id: idOf(remote),
    spec: {},
    ...(owner ? { owner } : {}),
    ...((remote.latest_version_id ?? remote.latest_version)
      ? { version: String(remote.latest_version_id ?? remote.latest_version) }
      : {}),
    extra: { origin: spec ? skillOrigin(spec) : "custom" },
  };
}

async function bundleOf(ctx: HandlerContext, spec: Spec): Promise<SkillBundle> {
  return readSkill(ctx.configDir, str(spec.source) ?? "");
}

export const providerCSkillHandler: KindHandler = {
  desired: skillDesired,
  replaceOn: ["skill_name"],

  async create(ctx, spec) {
    const bundle = await bundleOf(ctx, spec);
    const tag = skillOwnerTag(logicalNameOf(ctx.owner.resource), ctx.owner.project, ctx.owner.resource);
    const response = await ctx.http.request<Json>({
      method: "POST",
      path: "/skills",
      body: skillForm(bundle, tag),
      signal: ctx.signal,
    });
    return toRemote(response.body, spec);
  },

  async read(ctx, id, prior) {
    const remote = await getOrGone(ctx.http, { path: `/skills/${id}`, signal: ctx.signal });
    return remote === "gone" ? "gone" : toRemote(remote, prior?.spec);
  },

  async update(ctx, id, spec) {
    const bundle = await bundleOf(ctx, spec);
    await ctx.http.request<Json>({
      method: "POST",
      path: `/skills/${id}/versions`,
      body: skillForm(bundle),
      signal: ctx.signal,
    });
    const remote = await getOrGone(ctx.http, { path: `/skills/${id}`, signal: ctx.signal });
    if (remote === "gone") throw new UnforeseeableError("remote", `skill ${id} disappeared during update`);
    return toRemote(remote, spec);
  },

  async remove(ctx, id) {
    // A skill with versions cannot be deleted: delete every version first.
    let versions: Json[];
    try {
      versions = await listAll<Json>(ctx.http, `/skills/${id}/versions`, {
        pageSize: PAGE_SIZE,
        signal: ctx.signal,
      });
    } catch (error) {
      if ((error as { status?: number }).status === 404) return;
      throw error;
    }
    for (const version of versions) {
      const v = str(version.version) ?? str(version.id);
      if (v)
        await ignoreGone(() =>
          ctx.http.request({
            method: "DELETE",
            path: `/skills/${id}/versions/${encodeURIComponent(v)}`,
            signal: ctx.signal,
          }),
        );
    }
    await ignoreGone(() => ctx.http.request({ method: "DELETE", path: `/skills/${id}`, signal: ctx.signal }));
  },

  async findOwned(ctx: HandlerContext, owner: Owner) {
    const hit = await findFirst<Json>(
      ctx.http,
      "/skills",
      (s) => {
        const found = parseSkillOwnerTag(displayNameOf(s) ?? "");
        return found?.project === owner.project && found.resource === owner.resource;
      },
      { pageSize: PAGE_SIZE, signal: ctx.signal },
    );
    return hit ? toRemote(hit, undefined) : undefined;
  },
};
