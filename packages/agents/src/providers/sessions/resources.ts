// `agents session create --resource JSON`: a session resource written as in agents.yaml's
// `resources:` (docs/cli.md §Sessions) turned into the provider's wire form. What each provider's
// session create accepts is data on its wire (wire.ts `resources`), so the message that refuses a
// resource names the providers that take it.
import { SessionStartRefusal } from "../common/errors.js";
import { str } from "../common/handler-kit.js";
import { fileResource, gitRepositoryToWire } from "../managed-dialect/resources.js";
import { compact, type Json } from "../managed-dialect/spec.js";
import { SESSION_WIRES, type SessionResourceType } from "./wire.js";

const sessionsOf = (key: string) => (key.includes("/") ? key.replace("/", " ") : key);

/** The provider (and flavour) names whose sessions take `--resource` (of `type`, when given). */
export function sessionResourceProviders(type?: SessionResourceType): string[] {
  return Object.entries(SESSION_WIRES)
    .filter(([, wire]) => wire.resources && (type === undefined || wire.resources.types.includes(type)))
    .map(([key, wire]) => (wire.resources?.flavour ? `${key} ${wire.resources.flavour}` : sessionsOf(key)));
}

/**
 * One `--resource` (agents.yaml form: `file` with `file_id` or a declared file's name as `file`,
 * `memory_store` with the store's logical name, `git_repository` with `url`) → the wire form of
 * `wireKey`'s session create. `resolve` gives an applied file's or memory store's id by name.
 */
export function sessionResourceToWire(
  wireKey: string,
  resource: Record<string, unknown>,
  resolve: (kind: "files" | "memory_stores", name: string) => string,
): Json {
  const support = SESSION_WIRES[wireKey]?.resources;
  const type = resource.type;
  const known: SessionResourceType[] = ["file", "memory_store", "git_repository"];
  if (typeof type !== "string" || !known.includes(type as SessionResourceType))
    throw new SessionStartRefusal(
      `--resource: type must be one of ${known.join(", ")} (got ${JSON.stringify(type ?? null)})`,
    );
  const at = wireKey.replace("/", " ");
  if (!support?.types.includes(type as SessionResourceType))
    throw new SessionStartRefusal(
      `--resource ${type} is not taken by ${at} sessions; it is supported on ${sessionResourceProviders(type as SessionResourceType).join(", ")} sessions`,
    );
  if (type === "file") {
    const name = str(resource.file);
    const id = str(resource.file_id) ?? (name ? resolve("files", name) : undefined);
    if (!id)
      throw new SessionStartRefusal(
        "--resource file: needs file (a declared, applied file's name) or file_id; a session uploads nothing",
      );
    return fileResource(id, str(resource.mount_path), support.root);
  }
  if (type === "memory_store") {
    const name = str(resource.memory_store);
    if (!name) throw new SessionStartRefusal("--resource memory_store: needs memory_store (its name)");
    return compact({
      type: "memory_store",
      memory_store_id: resolve("memory_stores", name),
      ...(support.memoryStoreOptions
        ? { access: str(resource.access), instructions: str(resource.instructions) }
        : {}),
    });
  }
  return gitRepositoryToWire(resource as Json, { root: support.root, includeToken: true });
}
