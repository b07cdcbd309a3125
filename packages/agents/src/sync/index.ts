// `agents sync`: reverse-maps what the providers hold for this project back into agents.yaml.
// The whole result is computed in memory first; any ambiguity (an archived, missing, unnamed or
// doubly claimed project object) stops the sync before the file is touched (fail closed).
import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import { loadConfigText } from "../config/index.js";
import { createRuntime, type EngineOptions, readProjectState } from "../engine/api.js";
import { parseAddress } from "../model/address.js";
import { formatPath, isPlainObject } from "../model/field-path.js";
import { KINDS } from "../model/kinds.js";
import type { DesiredResource } from "../plan/types.js";
import type { ProviderName, Spec } from "../providers/types.js";
import { writeAtomically } from "../state/write.js";
import { indexClaims, kindKey, type Listed, listAccount } from "./claims.js";
import { withoutComparableAgreement } from "./comparable.js";
import { conflictingEdits, type ProviderEdits } from "./conflicts.js";
import { keptAsDeclared } from "./coverage.js";
import { mapIdReferences, syncRefsOf } from "./id-references.js";
import { type Edit, reconcile } from "./reconcile.js";
import { mapAgentReferences } from "./references.js";
import { claimUnstampedFromState } from "./state-claims.js";
import { applyEdits, parseForEdit, printDocument, rawValue } from "./yaml-edit.js";

export { unifiedDiff } from "./line-diff.js";

export type SyncOptions = Omit<EngineOptions, "targets" | "stateKey" | "refreshConcurrency">;

interface SyncResult {
  /** The file as read, and as sync would write it (equal when nothing changed). */
  before: string;
  after: string;
  /** One line per edited place, e.g. `~ agents.writer.instructions`. */
  changes: string[];
  /** New `${VAR}` placeholders for secrets; the user sets them in .env before the next plan. */
  variables: string[];
  warnings: string[];
  /**
   * Project-owned remote objects the state does not record under their address (e.g. added to
   * the file by this sync): `agents import` makes the next plan treat them as applied.
   */
  imports: Array<{ address: string; id: string }>;
}

/** Sync refused: every reason is listed and the file was left as it was. */
class SyncError extends Error {
  constructor(readonly problems: string[]) {
    super(`sync refused, agents.yaml left unchanged:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "SyncError";
  }
}

/**
 * Sync, phase by phase: list the account and claim what this project owns, reconcile each owned
 * object with its declaration into edits, report what could not be synced, then refuse on any
 * problem or apply the edits to the document and check the result still validates.
 */
export async function syncProject(given: SyncOptions): Promise<SyncResult> {
  // The project as its state knows it: a clone in a folder of another name syncs the same objects.
  const { state, project } = await readProjectState(given);
  const options = { ...given, project };
  const before = await fs.readFile(project.configPath, "utf8");
  const doc = parseForEdit(before);
  const runtime = createRuntime(options);
  const signal = options.signal ?? new AbortController().signal;
  const warnings: string[] = [];
  const warn = (m: string) => warnings.push(m);
  const providers = Object.keys(project.blocks).filter(
    (p) => runtime.handler(p as ProviderName, "agents") !== undefined || hasAnyList(runtime, p),
  ) as ProviderName[];
  const scoped = options.providers?.length
    ? providers.filter((p) => options.providers!.includes(p))
    : providers;
  const sync: SyncPhase = { options, runtime, doc, state, scoped, signal, warn, problems: [] };

  const { claims, listedKinds } = await claimAccount(sync);
  const reconciled = await reconcileOwned(sync, claims);
  reportUnsynced(sync, claims, listedKinds);
  sync.problems.push(...conflictingEdits(reconciled.perProvider));
  if (sync.problems.length > 0) throw new SyncError(sync.problems);

  const edits = dedupe(reconciled.perProvider.flatMap((r) => r.edits));
  applyEdits(doc, edits);
  const after = edits.length > 0 ? printDocument(doc) : before;
  validateResult(after, project.configPath, reconciled.variables, options.env ?? process.env);
  return {
    before,
    after,
    changes: edits.map(describeEdit),
    variables: [...new Set(reconciled.variables)],
    warnings,
    imports: reconciled.imports,
  };
}

/** What every phase of syncProject reads; `problems` collects what makes sync refuse. */
interface SyncPhase {
  options: SyncOptions;
  runtime: ReturnType<typeof createRuntime>;
  doc: ReturnType<typeof parseForEdit>;
  state: Awaited<ReturnType<typeof readProjectState>>["state"];
  scoped: ProviderName[];
  signal: AbortSignal;
  warn: (message: string) => void;
  problems: string[];
}

type Claims = ReturnType<typeof indexClaims>;

/** Every listable kind of the providers in scope, listed; what this project owns claimed by address. */
async function claimAccount(sync: SyncPhase): Promise<{ claims: Claims; listedKinds: Set<string> }> {
  const { options, runtime, state, scoped, signal, warn } = sync;
  const listedKinds = new Set<string>();
  for (const provider of scoped)
    for (const kind of KINDS)
      if (runtime.handler(provider, kind)?.list) listedKinds.add(kindKey(provider, kind));
  const listed = claimUnstampedFromState(
    await listAccount(runtime, scoped, KINDS, signal, warn),
    options.project.project,
    state.resources,
  );
  const claims = indexClaims(options.project.project, listed, listedKinds);
  for (const [address, items] of claims.duplicates)
    sync.problems.push(
      `${items.length} remote ${items[0]!.kind} claim the same logical name ${address} ` +
        `(${items.map((i) => i.remote.id).join(", ")}); archive or delete the extra one, or correct its ` +
        "agents.resource metadata, and run sync again",
    );
  return { claims, listedKinds };
}

/** Each owned object against its declaration (or none): the edits, new variables and imports. */
async function reconcileOwned(sync: SyncPhase, claims: Claims) {
  const { options, runtime, doc, state, signal, warn } = sync;
  const { project } = options;
  const declared = new Map(project.desired.map((r) => [r.address, r]));
  const perProvider: ProviderEdits[] = [];
  const variables: string[] = [];
  const imports: SyncResult["imports"] = [];
  for (const [address, item] of [...claims.owned].sort(([a], [b]) => a.localeCompare(b))) {
    const yamlPath = [item.kind, nameOf(item, address)];
    const resource = declared.get(address);
    if (!resource && rawValue(doc, yamlPath) !== undefined) {
      warn(
        `${address} is owned by project "${project.project}" but ${item.kind}.${yamlPath[1]} is declared for another provider; not synced`,
      );
      continue;
    }
    if (resource?.external) continue;
    const mapped = mapIdReferences(
      referencesMapped(item, address, doc, yamlPath, state.resources, claims, sync.problems),
      syncRefsOf(item.remote.extra),
      resource?.spec,
      { claims, provider: item.provider, holder: address, warn },
    );
    const handler = runtime.requireHandler(item.provider, item.kind, address);
    const listCtx = runtime.listContext(item.provider, signal, warn);
    const selected =
      resource && handler.readDeclared
        ? await handler.readDeclared(listCtx, item.remote.id, resource.spec)
        : {};
    const remote = { ...mapped, ...selected };
    // What readDeclared returns is in declared shape: it is compared with the declaration as
    // written, not with the handler's comparable form (seed digests).
    const comparable = resource
      ? {
          ...(await comparableSpec(resource, handler, runtime.configDir)),
          ...Object.fromEntries(Object.keys(selected).map((k) => [k, resource.spec[k]])),
        }
      : undefined;
    const result = reconcile({
      at: yamlPath,
      declared: comparable,
      remote: resource
        ? await withoutComparableAgreement(resource.spec, remote, handler.desired, runtime.configDir)
        : remote,
      raw: resource ? (rawValue(doc, yamlPath) as Record<string, unknown>) : undefined,
      sensitive: handler.sensitive ?? [],
      provider: item.provider,
    });
    perProvider.push({ provider: item.provider, node: formatPath(yamlPath), edits: result.edits });
    variables.push(...result.variables);
    if (state.resources[address]?.id !== item.remote.id) imports.push({ address, id: item.remote.id });
  }
  return { perProvider, variables, imports };
}

/** Declarations nothing remote was found for, kinds that cannot be listed, owned objects without a name. */
function reportUnsynced(sync: SyncPhase, claims: Claims, listedKinds: Set<string>): void {
  const { options, runtime, scoped, warn } = sync;
  const { project } = options;
  const unlisted = new Map<string, string>();
  for (const resource of project.desired) {
    if (resource.external || claims.owned.has(resource.address)) continue;
    if (!scoped.includes(resource.provider)) continue;
    if (!listedKinds.has(kindKey(resource.provider, resource.kind))) {
      unlisted.set(
        kindKey(resource.provider, resource.kind),
        keptAsDeclared(
          resource.provider,
          resource.kind,
          runtime.handler(resource.provider, resource.kind)?.localOnly === true,
        ),
      );
      continue;
    }
    warn(
      `${resource.address}: nothing owned by project "${project.project}" found remotely; the declaration is kept (apply would create it)`,
    );
  }
  for (const message of unlisted.values()) warn(message);
  for (const item of claims.unnamed)
    warn(
      `${item.provider} ${item.kind} ${item.remote.id} belongs to project "${project.project}" but has no usable agents.resource; not synced`,
    );
}

/**
 * Writes the synced text atomically (the one writer, state/write.ts: unique temp file, fsync,
 * rename, folder fsync), keeping the file's mode. Writing over the synced file itself is refused
 * when it changed since sync read it.
 */
export async function writeSynced(path: string, result: SyncResult, isSource: boolean): Promise<void> {
  if (isSource) {
    const now = await fs.readFile(path, "utf8").catch(() => undefined);
    if (now !== undefined && digest(now) !== digest(result.before))
      throw new SyncError([`${path} changed while sync was running; run sync again`]);
  }
  const mode = await fs
    .stat(path)
    .then((s) => s.mode & 0o777)
    .catch(() => 0o644);
  await writeAtomically(path, result.after, mode);
}

function hasAnyList(runtime: ReturnType<typeof createRuntime>, provider: string): boolean {
  return KINDS.some((kind) => runtime.handler(provider as ProviderName, kind)?.list);
}

function nameOf(item: Listed, address: string): string {
  const parsed = parseAddress(address);
  return parsed.ok ? parsed.value.name : item.remote.id;
}

function referencesMapped(
  item: Listed,
  address: string,
  doc: ReturnType<typeof parseForEdit>,
  yamlPath: string[],
  resources: Record<string, { kind: string; provider: string; id: string; name: string }>,
  claims: ReturnType<typeof indexClaims>,
  problems: string[],
): Spec {
  if (item.kind !== "agents") return item.remote.spec;
  const raw = rawValue(doc, yamlPath);
  const roster = isPlainObject(raw) && isPlainObject(raw.multiagent) ? raw.multiagent.agents : undefined;
  const declaredExternal = new Set<string>();
  for (const m of Array.isArray(roster) ? roster : [])
    if (isPlainObject(m) && typeof m.agent_id === "string") declaredExternal.add(m.agent_id);
  const skillNames = new Map<string, string>();
  for (const r of Object.values(resources))
    if (r.kind === "skills" && r.provider === item.provider) skillNames.set(r.id, r.name);
  return mapAgentReferences(item.remote.spec, {
    claims,
    provider: item.provider,
    holder: address,
    declaredExternal,
    skillNames,
    problems,
  });
}

async function comparableSpec(
  resource: DesiredResource,
  handler: { desired?: (spec: Spec, ctx: { configDir: string }) => Promise<Spec> | Spec },
  configDir: string,
): Promise<Spec> {
  // Where the handler's comparable form leaves a key out (e.g. a roster compared through refs),
  // the declaration as written is what the remote value is compared with.
  const comparable = (await handler.desired?.(resource.spec, { configDir })) ?? resource.spec;
  return { ...resource.spec, ...comparable };
}

/** Providers that agree ask for the same edit once each; apply it once. */
function dedupe(edits: Edit[]): Edit[] {
  const seen = new Set<string>();
  return edits.filter((edit) => {
    const key = JSON.stringify(edit);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function validateResult(text: string, file: string, variables: string[], env: NodeJS.ProcessEnv): void {
  const placeholders = Object.fromEntries(variables.map((v) => [v, "sync-placeholder"]));
  const result = loadConfigText(text, file, { env: { ...env, ...placeholders } });
  const errors = result.diagnostics.filter((d) => d.severity === "error");
  if (errors.length > 0)
    throw new SyncError(
      errors.map((d) => `the synced file would not validate: line ${d.line}: ${d.code} ${d.message}`),
    );
}

function describeEdit(edit: Edit): string {
  const where = formatPath(edit.path);
  if (edit.op === "delete") return `- ${where}`;
  if (edit.op === "append") return `+ ${where}[] (${itemName(edit.value)})`;
  return edit.path.length === 2 ? `+ ${where}` : `~ ${where}`;
}

function itemName(value: unknown): string {
  return isPlainObject(value) && typeof value.name === "string" ? value.name : "new item";
}

function digest(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
