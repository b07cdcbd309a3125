// Deployments: provider_c takes them natively; provider_d has none and the adapter keeps the
// session body a run would send. Both start from the same mapping of the declaration.
import { str } from "../common/handler-kit.js";
import { userMetadata } from "../common/ownership.js";
import type { Resolver, ReverseRefs } from "./agent.js";

/** A schedule declared without timezone gets UTC (the provider requires an IANA timezone). */
export const DEFAULT_SCHEDULE_TIMEZONE = "UTC";

/** The deployment fields a read is compared on (both providers' deployments, native or emulated). */
export const DEPLOYMENT_COMPARED = [
  "agent",
  "agent_version",
  "environment",
  "vaults",
  "memory_stores",
  "resources",
  "initial_events",
  "schedule",
  "description",
  "metadata",
] as const;

import { DeclarationError } from "../common/errors.js";
import { UnforeseeableError } from "../unforeseeable.js";
import { checkoutToWire, fileResource, gitRepositoryToWire, mountPath, repositoryUrl } from "./resources.js";
import { compact, isRecord, type Json, nonEmpty, records, strList } from "./spec.js";

/** `read_write` without instructions is what a bare store name means: one spelling for both. */
function isPlainStore(resource: Json): boolean {
  const access = str(resource.access);
  return (access === undefined || access === "read_write") && !nonEmpty(str(resource.instructions));
}

export function textContent(content: unknown): Json[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  if (Array.isArray(content))
    return content.map((c) => (typeof c === "string" ? { type: "text", text: c } : (c as Json)));
  throw new DeclarationError(
    "managed.message_event_without_content",
    "a message initial event needs content",
  );
}

/** Declared initial events → wire events. `rubric_file` must already be read into `rubric`. */
export function initialEventsToWire(events: unknown): Json[] {
  return records(events).map((event) => {
    if (event.type === "user.message" || event.type === "system.message")
      return { type: event.type, content: textContent(event.content) };
    if (event.type === "user.define_outcome") {
      if (event.rubric_file !== undefined && event.rubric === undefined)
        throw new UnforeseeableError("internal", "rubric_file must be read before mapping (internal)");
      const rubric = str(event.rubric);
      return compact({
        type: "user.define_outcome",
        description: str(event.description),
        rubric: rubric !== undefined ? { type: "text", content: rubric } : undefined,
        max_iterations: typeof event.max_iterations === "number" ? event.max_iterations : undefined,
      });
    }
    throw new DeclarationError(
      "managed.initial_event_type",
      `initial event type "${String(event.type)}" is not supported`,
    );
  });
}

function contentText(content: unknown): string | Json[] {
  const blocks = records(content);
  if (blocks.every((b) => b.type === "text")) return blocks.map((b) => str(b.text) ?? "").join("");
  return blocks;
}

export function initialEventsFromWire(events: unknown): Json[] {
  return records(events).map((event) => {
    if (event.type === "user.define_outcome") {
      const rubric = isRecord(event.rubric) ? str(event.rubric.content) : undefined;
      return compact({
        type: event.type,
        description: str(event.description),
        rubric,
        max_iterations: typeof event.max_iterations === "number" ? event.max_iterations : undefined,
      });
    }
    return { type: str(event.type), content: contentText(event.content) };
  });
}

/** Declared events in comparable form (content as one string, rubric inlined). */
function canonicalInitialEvents(events: unknown): Json[] {
  return initialEventsFromWire(initialEventsToWire(events));
}

export interface DeploymentRefs extends Resolver {
  /** Remote id of a file resource that declares a local `source` (uploaded by the handler). */
  uploadedFile(source: string): string;
}

/** Resources of a deployment (explicit `resources` first, then `memory_stores` as plain stores). */
export function deploymentResources(
  spec: Json,
  root: string,
  refs: DeploymentRefs,
  includeToken: boolean,
): Json[] {
  const out: Json[] = [];
  for (const resource of records(spec.resources)) {
    if (resource.type === "file") {
      const source = str(resource.source);
      const id = str(resource.file_id) ?? (source ? refs.uploadedFile(source) : undefined);
      if (!id)
        throw new DeclarationError(
          "managed.file_resource_without_source",
          "a file resource needs file_id or source",
        );
      out.push(fileResource(id, str(resource.mount_path), root));
    } else if (resource.type === "memory_store") {
      const name = str(resource.memory_store);
      if (!name)
        throw new DeclarationError(
          "managed.memory_resource_without_store",
          "a memory_store resource needs memory_store",
        );
      out.push(
        compact({
          type: "memory_store",
          memory_store_id: refs.resolve("memory_stores", name),
          access: str(resource.access),
          instructions: str(resource.instructions),
        }),
      );
    } else if (resource.type === "git_repository") {
      out.push(gitRepositoryToWire(resource, { root, includeToken }));
    } else
      throw new DeclarationError(
        "managed.deployment_resource_type",
        `deployment resource type "${String(resource.type)}" is not supported`,
      );
  }
  for (const name of strList(spec.memory_stores))
    out.push({ type: "memory_store", memory_store_id: refs.resolve("memory_stores", name) });
  return out;
}

/** Wire resources → declared `resources` + `memory_stores` (plain stores fold into the list). */
export function deploymentResourcesFromWire(
  resources: unknown,
  reverse: ReverseRefs,
  sourceOf: (fileId: string) => string | undefined,
): { resources: Json[]; memory_stores: string[] } {
  const out: Json[] = [];
  const stores: string[] = [];
  for (const r of records(resources)) {
    if (r.type === "memory_store") {
      const id = str(r.memory_store_id) ?? "";
      const name = reverse.get(id) ?? id;
      if (isPlainStore(r)) stores.push(name);
      else
        out.push(
          compact({
            type: "memory_store",
            memory_store: name,
            access: str(r.access),
            instructions: str(r.instructions),
          }),
        );
    } else if (r.type === "file") {
      const id = str(r.file_id) ?? "";
      const source = sourceOf(id);
      out.push(
        compact({ type: "file", ...(source ? { source } : { file_id: id }), mount_path: str(r.mount_path) }),
      );
    } else if (r.type === "github_repository") {
      const checkout = isRecord(r.checkout) ? r.checkout : undefined;
      out.push(
        compact({
          type: "git_repository",
          url: str(r.url),
          checkout: checkout
            ? checkout.type === "branch"
              ? { branch: str(checkout.name) }
              : { commit: str(checkout.sha) }
            : undefined,
          mount_path: str(r.mount_path),
        }),
      );
    }
  }
  return { resources: out, memory_stores: stores.sort() };
}

/** Declared resources in comparable form: paths under the root, urls cleaned, tokens left out. */
function canonicalDeploymentResources(
  spec: Json,
  root: string,
): { resources: Json[]; memory_stores: string[] } {
  const out: Json[] = [];
  const stores = strList(spec.memory_stores);
  for (const r of records(spec.resources)) {
    if (r.type === "memory_store" && isPlainStore(r)) {
      stores.push(str(r.memory_store) ?? "");
    } else if (r.type === "memory_store") {
      out.push(
        compact({
          type: "memory_store",
          memory_store: str(r.memory_store),
          access: str(r.access),
          instructions: str(r.instructions),
        }),
      );
    } else if (r.type === "file") {
      const source = str(r.source);
      out.push(
        compact({
          type: "file",
          ...(str(r.file_id) ? { file_id: str(r.file_id) } : { source }),
          mount_path: mountPath(root, str(r.mount_path)),
        }),
      );
    } else if (r.type === "git_repository") {
      const url = repositoryUrl(str(r.url) ?? "");
      const wire = gitRepositoryToWire({ ...r, url }, { root, includeToken: false });
      const checkout = checkoutToWire(r.checkout);
      out.push(
        compact({
          type: "git_repository",
          url,
          checkout: checkout
            ? checkout.type === "branch"
              ? { branch: checkout.name }
              : { commit: checkout.sha }
            : undefined,
          mount_path: str(wire.mount_path),
        }),
      );
    }
  }
  return { resources: out, memory_stores: [...new Set(stores)].sort() };
}

export function scheduleToWire(schedule: unknown): Json | undefined {
  if (!isRecord(schedule)) return undefined;
  const expression = str(schedule.expression);
  if (!expression)
    throw new DeclarationError("managed.schedule_without_expression", "schedule needs an expression");
  return { type: "cron", expression, timezone: str(schedule.timezone) ?? DEFAULT_SCHEDULE_TIMEZONE };
}

export function scheduleFromWire(schedule: unknown): Json | undefined {
  if (!isRecord(schedule)) return undefined;
  return { expression: str(schedule.expression), timezone: str(schedule.timezone) };
}

export function canonicalDeployment(spec: Json, root: string): Json {
  const { resources, memory_stores } = canonicalDeploymentResources(spec, root);
  return compact({
    agent: str(spec.agent),
    agent_version: typeof spec.agent_version === "number" ? spec.agent_version : undefined,
    environment: str(spec.environment),
    vaults: [...strList(spec.vaults)].sort(),
    memory_stores,
    resources,
    initial_events: canonicalInitialEvents(spec.initial_events),
    schedule: isRecord(spec.schedule)
      ? {
          expression: str(spec.schedule.expression),
          timezone: str(spec.schedule.timezone) ?? DEFAULT_SCHEDULE_TIMEZONE,
        }
      : undefined,
    description: nonEmpty(str(spec.description)),
    metadata: userMetadata(spec.metadata),
  });
}
