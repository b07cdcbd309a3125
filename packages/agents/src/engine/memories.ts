// `agents memory list|get|put|rm|history|redact|import`: the memories inside an applied memory store, as
// data. Nothing here takes the state lock, writes the state or enters a plan; the store is found
// through the applied state and every call goes through the provider's HTTP client (http.ts).
import { createHash } from "node:crypto";
import { type Dirent, promises as fs } from "node:fs";
import { join, relative, sep } from "node:path";
import { limiter } from "../plan/bounded.js";
import type { HttpClient } from "../providers/http.js";
import { MEMORY_APIS, type MemoryApi } from "../providers/memory-apis.js";
import { type ResourceState, StateError } from "../state/types.js";
import { createRuntime, type EngineOptions, readProjectState } from "./api.js";

const HAVE = Object.keys(MEMORY_APIS).join(", ");
const HAVE_VERSIONS = Object.entries(MEMORY_APIS)
  .filter(([, api]) => api?.versions !== undefined)
  .map(([name]) => name)
  .join(", ");

export interface MemoryInfo {
  id: string;
  path: string;
  content_sha256?: string;
  /** get only. */
  content?: string;
}

export interface MemoryVersionInfo {
  id: string;
  memory_id?: string;
  path?: string;
  operation?: string;
  created_at?: string;
  redacted: boolean;
}

interface Store {
  entry: ResourceState;
  api: MemoryApi;
  http: HttpClient;
  base: string;
}

async function openStore(options: EngineOptions, name: string, needVersions = false): Promise<Store> {
  const { state } = await readProjectState(options);
  const matches = (r: { kind: string; name: string; address: string }) =>
    r.kind === "memory_stores" && (r.name === name || r.address === name);
  const entry = Object.values(state.resources).find(matches);
  const command = options.command ?? "agents memory";
  if (!entry) {
    const declared = options.project.desired.find(matches);
    if (declared)
      throw new StateError(
        `${declared.address} is declared but not applied yet; run agents apply first, then ${command}`,
      );
    const known = Object.values(state.resources)
      .filter((r) => r.kind === "memory_stores")
      .map((r) => r.name)
      .sort();
    throw new StateError(
      `no memory store ${name} in ${options.project.configPath} or its state${
        known.length ? ` (applied memory stores: ${known.join(", ")})` : " (no memory store has been applied)"
      }`,
    );
  }
  const api = MEMORY_APIS[entry.provider];
  if (!api)
    throw new StateError(
      `${entry.address}: ${command} is not available for ${entry.provider} memory stores; it works on ${HAVE}`,
    );
  if (needVersions && !api.versions)
    throw new StateError(
      `${entry.address}: ${entry.provider} keeps no memory versions; ${command} works on ${HAVE_VERSIONS}`,
    );
  const http = api.client(createRuntime(options).session(entry.provider), entry.spec);
  return { entry, api, http, base: `/memory_stores/${entry.id}` };
}

type Json = Record<string, unknown>;
const text = (v: unknown) => (typeof v === "string" ? v : undefined);

function toInfo(item: Json, withContent: boolean): MemoryInfo {
  const sha = text(item.content_sha256);
  const content = text(item.content);
  return {
    id: String(item.id),
    path: String(item.path),
    ...(sha ? { content_sha256: sha } : {}),
    ...(withContent && content !== undefined ? { content } : {}),
  };
}

async function listIn(store: Store, options: EngineOptions): Promise<MemoryInfo[]> {
  const items = await store.api.list(
    store.http,
    `${store.base}/memories`,
    store.api.basicView ?? {},
    options.signal,
  );
  return items
    .filter((i) => i.type !== "memory_prefix" && typeof i.path === "string")
    .map((i) => toInfo(i, false))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

async function find(store: Store, options: EngineOptions, path: string): Promise<MemoryInfo | undefined> {
  const wanted = store.api.path(path);
  return (await listIn(store, options)).find((m) => m.path === wanted);
}

function missing(store: Store, path: string): StateError {
  return new StateError(
    `no memory ${store.api.path(path)} in memory store ${store.entry.name} (${store.entry.id})`,
  );
}

export async function listMemories(options: EngineOptions, storeName: string): Promise<MemoryInfo[]> {
  return listIn(await openStore(options, storeName), options);
}

export async function getMemory(
  options: EngineOptions,
  storeName: string,
  path: string,
): Promise<MemoryInfo> {
  const store = await openStore(options, storeName);
  const found = await find(store, options, path);
  if (!found) throw missing(store, path);
  const res = await store.http.request<Json>({
    method: "GET",
    path: `${store.base}/memories/${found.id}`,
    ...(store.api.fullView ? { query: store.api.fullView } : {}),
  });
  return toInfo(res.body ?? {}, true);
}

/** Creates the memory at PATH, or rewrites its content; `created` says which. */
export async function putMemory(
  options: EngineOptions,
  storeName: string,
  path: string,
  content: string,
): Promise<MemoryInfo & { created: boolean }> {
  const store = await openStore(options, storeName);
  const found = await find(store, options, path);
  const res = found
    ? await store.http.request<Json>({
        method: "POST",
        path: `${store.base}/memories/${found.id}`,
        json: { content },
      })
    : await store.http.request<Json>({
        method: "POST",
        path: `${store.base}/memories`,
        json: { path: store.api.path(path), content },
      });
  return { ...toInfo(res.body ?? {}, false), created: !found };
}

export async function removeMemory(
  options: EngineOptions,
  storeName: string,
  path: string,
): Promise<MemoryInfo> {
  const store = await openStore(options, storeName);
  const found = await find(store, options, path);
  if (!found) throw missing(store, path);
  await store.http.request({ method: "DELETE", path: `${store.base}/memories/${found.id}` });
  return found;
}

function toVersion(v: Json, fields: NonNullable<MemoryApi["versions"]>): MemoryVersionInfo {
  const memoryId = text(v[fields.memoryId]);
  const path = text(v[fields.memoryPath]);
  const operation = text(v[fields.operation]);
  return {
    id: String(v.id),
    ...(memoryId ? { memory_id: memoryId } : {}),
    ...(path ? { path } : {}),
    ...(operation ? { operation } : {}),
    ...(text(v.created_at) ? { created_at: text(v.created_at) } : {}),
    redacted: v.redacted_at !== undefined && v.redacted_at !== null,
  };
}

/** The versions of the memory at PATH (also after it was deleted), oldest first. */
export async function memoryHistory(
  options: EngineOptions,
  storeName: string,
  path: string,
): Promise<MemoryVersionInfo[]> {
  const store = await openStore(options, storeName, true);
  const fields = store.api.versions!;
  const wanted = store.api.path(path);
  const versions = await store.api.list(store.http, `${store.base}/${fields.path}`, {}, options.signal);
  const mine = versions.map((v) => toVersion(v, fields)).filter((v) => v.path === wanted);
  if (mine.length === 0) throw missing(store, path);
  const at = (v: MemoryVersionInfo) => v.created_at ?? "";
  return mine.sort((a, b) => (at(a) < at(b) ? -1 : at(a) > at(b) ? 1 : 0));
}

/** Redacts one version's content (the version stays, its content is gone for good). */
export async function redactMemoryVersion(
  options: EngineOptions,
  storeName: string,
  versionId: string,
): Promise<MemoryVersionInfo> {
  const store = await openStore(options, storeName, true);
  const res = await store.http.request<Json>({
    method: "POST",
    path: `${store.base}/${store.api.versions!.path}/${versionId}/redact`,
    json: {},
  });
  return toVersion(res.body ?? {}, store.api.versions!);
}

/** What `importMemories` did (or, with dryRun, would do) with each file of the folder. */
export interface MemoryImportReport {
  store: { name: string; id: string; provider: string };
  dryRun: boolean;
  /** Memory paths as the provider spells them, sorted. */
  created: string[];
  updated: string[];
  unchanged: string[];
  /** Left out on purpose (dotfiles, symbolic links): the folder-relative path and why. */
  skipped: Array<{ file: string; reason: string }>;
  /** Files that could not become a memory, or whose write failed: the others still ran. */
  failed: Array<{ file: string; error: string }>;
}

export interface MemoryImportOptions {
  dryRun?: boolean;
  /** Most writes in flight at once (default 4); the provider's pacing lane still gates each. */
  concurrency?: number;
}

export const DEFAULT_IMPORT_CONCURRENCY = 4;

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");
const utf8 = new TextDecoder("utf-8", { fatal: true });
const byPath = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Every regular file under `dir`, folder-relative with `/`; dotfiles and symbolic links left out. */
async function walk(
  dir: string,
  skipped: MemoryImportReport["skipped"],
): Promise<Array<{ file: string; full: string }>> {
  const out: Array<{ file: string; full: string }> = [];
  const visit = async (at: string): Promise<void> => {
    const entries: Dirent[] = await fs.readdir(at, { withFileTypes: true });
    for (const entry of entries) {
      const full = join(at, entry.name);
      const file = relative(dir, full).split(sep).join("/");
      if (entry.name.startsWith(".")) skipped.push({ file, reason: "hidden (dotfile)" });
      else if (entry.isSymbolicLink()) skipped.push({ file, reason: "symbolic link" });
      else if (entry.isDirectory()) await visit(full);
      else if (entry.isFile()) out.push({ file, full });
      else skipped.push({ file, reason: "not a regular file" });
    }
  };
  const stat = await fs.stat(dir).catch(() => undefined);
  if (!stat?.isDirectory())
    throw new StateError(`${dir} is not a folder: agents memory import reads a folder`);
  await visit(dir);
  return out;
}

/**
 * `agents memory import STORE DIR`: each file under DIR becomes the memory at its folder-relative
 * path (created, or its content rewritten), and memories the folder does not hold are left alone.
 * The store is listed once; a file whose content the store already holds (same sha256) is not
 * written. Writes run at most `concurrency` at a time through the store's client, whose pacing
 * lane (providers/pacing.ts) spaces them to the provider's limit. A failed file is reported, the
 * others still run.
 */
export async function importMemories(
  options: EngineOptions,
  storeName: string,
  dir: string,
  importOptions: MemoryImportOptions = {},
): Promise<MemoryImportReport> {
  const store = await openStore(
    { ...options, command: options.command ?? "agents memory import" },
    storeName,
  );
  const report: MemoryImportReport = {
    store: { name: store.entry.name, id: store.entry.id, provider: store.entry.provider },
    dryRun: importOptions.dryRun === true,
    created: [],
    updated: [],
    unchanged: [],
    skipped: [],
    failed: [],
  };
  const files = await walk(dir, report.skipped);
  const present = new Map((await listIn(store, options)).map((m) => [m.path, m]));
  const slot = limiter(Math.max(1, importOptions.concurrency ?? DEFAULT_IMPORT_CONCURRENCY));
  const seen = new Map<string, string>();
  await Promise.all(
    files.map(({ file, full }) =>
      slot(async () => {
        try {
          let path: string;
          try {
            path = store.api.path(file);
          } catch (error) {
            throw new StateError((error as Error).message.replace(/^memory entry key/, "path"));
          }
          const twin = seen.get(path);
          if (twin !== undefined) throw new StateError(`${twin} is the same memory path (${path})`);
          seen.set(path, file);
          let content: string;
          try {
            content = utf8.decode(await fs.readFile(full));
          } catch (error) {
            if (error instanceof TypeError) throw new StateError("not UTF-8 text (memories hold text)");
            throw error;
          }
          const found = present.get(path);
          const same = found
            ? found.content_sha256 !== undefined
              ? found.content_sha256 === sha256(content)
              : (await fetchContent(store, found.id)) === content
            : false;
          if (same) return void report.unchanged.push(path);
          if (!report.dryRun) {
            if (found)
              await store.http.request({
                method: "POST",
                path: `${store.base}/memories/${found.id}`,
                json: { content },
                ...(options.signal ? { signal: options.signal } : {}),
              });
            else
              await store.http.request({
                method: "POST",
                path: `${store.base}/memories`,
                json: { path, content },
                ...(options.signal ? { signal: options.signal } : {}),
              });
          }
          (found ? report.updated : report.created).push(path);
        } catch (error) {
          report.failed.push({ file, error: (error as Error).message });
        }
      }),
    ),
  );
  for (const list of [report.created, report.updated, report.unchanged]) list.sort(byPath);
  report.skipped.sort((a, b) => byPath(a.file, b.file));
  report.failed.sort((a, b) => byPath(a.file, b.file));
  return report;
}

/** A listed memory's content, for a provider whose list names no digest. */
async function fetchContent(store: Store, id: string): Promise<string | undefined> {
  const res = await store.http.request<Json>({
    method: "GET",
    path: `${store.base}/memories/${id}`,
    ...(store.api.fullView ? { query: store.api.fullView } : {}),
  });
  return text(res.body?.content);
}
