// provider_b skills (both domains): multipart zip create (`file`, `name`, `type: custom`), new
// versions through `files` with the entries under one folder named after the SKILL.md name.

import { DeclarationError } from "../../common/errors.js";
import { multipartFile, removeTolerant, send, type Wire } from "../../common/handler-kit.js";
import { packSkill } from "../../common/local-files.js";
import { firstMatch, walkAfterId } from "../../common/paging.js";
import type { HandlerContext, KindHandler, RemoteObject } from "../../types.js";
import type { ApiDomain } from "../client.js";
import { client, readEither, requireOneDomain, specDomain } from "./shared.js";

interface SkillDecl {
  source: string;
  description?: string;
  origin?: "custom" | "official";
}

function toRemote(wire: Wire, domain: ApiDomain, id?: string): RemoteObject {
  return {
    id: String(id ?? wire.id),
    spec: { derived: { domain } },
    version:
      typeof wire.latest_version === "string" || typeof wire.latest_version === "number"
        ? wire.latest_version
        : undefined,
    extra: { domain, name: wire.name ?? wire.display_title, latest_version: wire.latest_version },
  };
}

export const skillHandler: KindHandler = {
  replaceOn: ["derived.domain"],
  async desired(spec, dctx) {
    const decl = spec as unknown as SkillDecl;
    const domain = requireOneDomain(spec, "skill");
    if (decl.origin === "official") return { ...spec, derived: { domain } };
    return { ...spec, digest: (await packSkill(dctx.configDir, decl.source)).digest, derived: { domain } };
  },
  async create(ctx, spec) {
    const decl = spec as unknown as SkillDecl;
    if (decl.origin === "official") {
      throw new DeclarationError(
        "provider_b.official_skill_upload",
        "official skills are referenced from agents ({type: official, skill_id}); they are not uploaded",
      );
    }
    const domain = requireOneDomain(spec, "skill");
    const pkg = await packSkill(ctx.configDir, decl.source);
    const description = decl.description ?? pkg.description;
    const form = multipartFile("file", pkg.zip, `${pkg.name}.zip`, "application/zip", {
      name: pkg.name,
      type: "custom",
      ...(description ? { description } : {}),
    });
    return toRemote(
      await send(ctx, client(ctx, domain), { method: "POST", path: "/skills", body: form }),
      domain,
    );
  },
  async update(ctx: HandlerContext, id, spec) {
    const decl = spec as unknown as SkillDecl;
    const domain = requireOneDomain(spec, "skill");
    const http = client(ctx, domain);
    const probe = await packSkill(ctx.configDir, decl.source);
    const pkg = await packSkill(ctx.configDir, decl.source, probe.name);
    await send(ctx, http, {
      method: "POST",
      path: `/skills/${id}/versions`,
      body: multipartFile("files", pkg.zip, `${pkg.name}.zip`, "application/zip"),
    });
    return toRemote(await send(ctx, http, { method: "GET", path: `/skills/${id}` }), domain, id);
  },
  async read(ctx, id, prior) {
    // Without a recorded domain (an adoption), the skill may live on either API.
    const found = await readEither(ctx, `/skills/${id}`, specDomain(prior?.spec));
    return found === "gone" ? "gone" : toRemote(found.wire, found.domain, id);
  },
  async remove(ctx, id, prior) {
    await removeTolerant(
      client(ctx, specDomain(prior?.spec) ?? "managed"),
      "DELETE",
      `/skills/${id}`,
      ctx.signal,
    );
  },
  // Skills carry no metadata, and their name (the SKILL.md name) is unique per API domain: a
  // conflict is adopted by the engine only after a journaled create of this address that never
  // recorded its answer (see KindHandler.findNamed).
  async findNamed(ctx, spec) {
    const decl = spec as unknown as SkillDecl;
    if (decl.origin === "official") return undefined;
    const domain = requireOneDomain(spec, "skill");
    const { name } = await packSkill(ctx.configDir, decl.source);
    const found = await firstMatch(
      walkAfterId<Wire>(client(ctx, domain), "/skills", {}, ctx.signal),
      (s) => s.name === name,
    );
    return found ? toRemote(found, domain) : undefined;
  },
};
