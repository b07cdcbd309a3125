// provider_d skills: create + get only. The upload is ONE zip in the multipart field `files`,
// every entry under `<skill name>/`. Any change uploads a new skill; removal cannot delete.

import { str } from "../../common/handler-kit.js";
import { readSkill } from "../../common/local-files.js";
import { getOrGone, idOf, isStatus } from "../../managed-dialect/remote.js";
import { skillDesired, skillOrigin } from "../../managed-dialect/skill.js";
import type { Json } from "../../managed-dialect/spec.js";
import type { KindHandler, RemoteObject } from "../../types.js";

export async function skillZip(
  name: string,
  files: Array<{ path: string; bytes: Uint8Array }>,
): Promise<Uint8Array> {
  // Loaded on first use: fflate builds its Huffman tables at load, which no other command needs.
  const { zipSync } = await import("fflate");
  const entries: Record<string, Uint8Array> = {};
  for (const file of files) entries[`${name}/${file.path}`] = file.bytes;
  return zipSync(entries);
}

const toRemote = (remote: Json, spec: Json | undefined): RemoteObject => ({
  id: idOf(remote),
  spec: {},
  ...(remote.latest_version !== undefined && remote.latest_version !== null
    ? { version: String(remote.latest_version) }
    : {}),
  extra: { origin: spec ? skillOrigin(spec) : "custom" },
});

export const providerDSkillHandler: KindHandler = {
  desired: skillDesired,
  createBeforeDestroy: true,

  async create(ctx, spec) {
    const bundle = await readSkill(ctx.configDir, str(spec.source) ?? "");
    const form = new FormData();
    form.append(
      "files",
      new Blob([(await skillZip(bundle.name, bundle.files)) as Uint8Array<ArrayBuffer>], {
        type: "application/zip",
      }),
      `${bundle.name}.zip`,
    );
    const response = await ctx.http.request<Json>({
      method: "POST",
      path: "/skills",
      body: form,
      signal: ctx.signal,
    });
    return toRemote(response.body, spec);
  },

  async read(ctx, id, prior) {
    const remote = await getOrGone(ctx.http, { path: `/skills/${id}`, signal: ctx.signal });
    return remote === "gone" ? "gone" : toRemote(remote, prior?.spec);
  },

  cannotDelete: "provider_d cannot delete skills",
  async remove(ctx, id) {
    try {
      await ctx.http.request({
        method: "DELETE",
        path: `/skills/${id}`,
        signal: ctx.signal,
        allowStatus: [404],
      });
    } catch (error) {
      if (!isStatus(error, 405)) throw error;
    }
    // The provider has no skill deletion (the route answers 404): the id is forgotten only.
    ctx.warn(
      `provider_d cannot delete skills; skill ${id} is no longer managed but may remain on the provider`,
    );
  },
};
