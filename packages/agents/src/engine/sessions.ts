// Sessions of applied agents: create, list, get, delete, send, follow events, run turns and chat
// (docs/cli.md §Sessions). The agent is resolved from state (a logical name → its remote id);
// a session is only ever touched when its agent is one this project applied. Nothing here holds
// the state lock (a chat may last hours) or writes to the terminal.
import { formatAddress } from "../model/address.js";
import type { Kind } from "../model/kinds.js";
import type { HttpClient } from "../providers/http.js";
import type { ProviderRuntime } from "../providers/registry.js";
import { endsTurn, type SessionEvent } from "../providers/sessions/events.js";
import { sessionResourceProviders, sessionResourceToWire } from "../providers/sessions/resources.js";
import { type FollowState, follow, listEvents, newFollowState } from "../providers/sessions/stream.js";
import { PROVIDERS_WITH_SESSIONS, SESSION_WIRES, type SessionWire } from "../providers/sessions/wire.js";
import type { ProviderName, Spec } from "../providers/types.js";
import { type ResourceState, StateError } from "../state/types.js";
import { createRuntime, type EngineOptions, readProjectState } from "./api.js";
import { findApplied } from "./run.js";

export type { SessionEvent } from "../providers/sessions/events.js";
export { StreamCutError } from "../providers/sessions/stream.js";
export { PROVIDERS_WITH_SESSIONS } from "../providers/sessions/wire.js";

/** A session as the CLI shows it: who it belongs to, plus the provider's object. */
export interface SessionInfo {
  id: string;
  provider: string;
  /** The address of the agent it runs (`provider_b.agents["writer"]`). */
  agent: string;
  status?: string;
  title?: string | null;
  created_at?: string;
  /** The provider's session object, as read. */
  remote: Record<string, unknown>;
}

export interface CreateSessionInput {
  title?: string;
  /** A logical identity name (provider_b Forward agents). */
  identity?: string;
  /** Environment variables on top of the declared ones (provider_b only). */
  env?: Record<string, string>;
  /**
   * Session resources in the agents.yaml form, after the declared ones (provider_a: files;
   * provider_b Managed and provider_c: files, memory stores, repositories; provider_d: files and
   * memory stores).
   */
  resources?: Record<string, unknown>[];
}

interface Bound {
  runtime: ProviderRuntime;
  resources: Record<string, ResourceState>;
}

async function bind(options: EngineOptions): Promise<Bound> {
  const state = await readProjectState(options);
  return { runtime: createRuntime(options), resources: state.state.resources };
}

function wireKey(entry: ResourceState): string {
  return entry.extra?.delivery === "forward" ? `${entry.provider}/forward` : entry.provider;
}

function clientFor(runtime: ProviderRuntime, provider: string, wire: SessionWire): HttpClient {
  const session = runtime.session(provider as ProviderName);
  if (!wire.api) return session.http;
  const api = session.apis?.[wire.api];
  if (!api) throw new StateError(`${provider} has no ${wire.api} API in this build`);
  return api;
}

function wireOf(entry: ResourceState): SessionWire {
  const wire = SESSION_WIRES[wireKey(entry)];
  if (!wire)
    throw new StateError(
      `${entry.address}: ${entry.provider} has no sessions; sessions exist on ${PROVIDERS_WITH_SESSIONS.join(", ")}`,
    );
  return wire;
}

function info(provider: string, agent: string, remote: Record<string, unknown>): SessionInfo {
  return {
    id: String(remote.id),
    provider,
    agent,
    ...(typeof remote.status === "string" ? { status: remote.status } : {}),
    ...(remote.title !== undefined ? { title: remote.title as string | null } : {}),
    ...(typeof remote.created_at === "string" ? { created_at: remote.created_at } : {}),
    remote,
  };
}

function refusing(option: string, providers: string): StateError {
  return new StateError(`${option} is supported on ${providers} sessions only`);
}

/** Creates a session of the applied agent `target` (logical name or address). */
export async function createSession(
  options: EngineOptions,
  target: string,
  input: CreateSessionInput = {},
): Promise<SessionInfo> {
  return (await createOpenSession(options, target, input)).info;
}

/**
 * As createSession, and returns the session ready to talk to, without the look-up `openSession`
 * makes (it reads state and asks each provider for the id).
 */
export async function createOpenSession(
  options: EngineOptions,
  target: string,
  input: CreateSessionInput = {},
): Promise<OpenSession> {
  const command = options.command ?? "agents session create";
  const { runtime, resources } = await bind(options);
  const entry = findApplied(
    { ...options, command },
    resources,
    target,
    "agents",
    `${command} starts agents only`,
  );
  const wire = wireOf(entry);
  const declared = options.project.desired.find((r) => r.address === entry.address);
  if (!declared)
    throw new StateError(
      `${entry.address} is in state but no longer declared in ${options.project.configPath}; a session is built from the declaration`,
    );
  const spec = declared.spec as Record<string, unknown>;
  const client = clientFor(runtime, entry.provider, wire);
  const lookup = (kind: Kind, name: unknown) =>
    typeof name === "string"
      ? resources[formatAddress({ provider: entry.provider, kind, name })]?.id
      : undefined;
  if (input.identity !== undefined && !wire.api) throw refusing("--identity", "provider_b Forward");
  if (!wire.create) {
    // Built from the declaration by the agent's handler (provider_b managed agents).
    const handler = runtime.requireHandler(entry.provider, "agents", entry.address);
    if (!handler.startSession)
      throw new StateError(`${entry.address}: ${entry.provider} cannot create sessions`);
    const extended: Spec = {
      ...declared.spec,
      ...(input.env
        ? { environment_variables: { ...(spec.environment_variables as object), ...input.env } }
        : {}),
      ...(input.resources
        ? { resources: [...((spec.resources as unknown[] | undefined) ?? []), ...input.resources] }
        : {}),
    } as Spec;
    const ctx = runtime.context(
      entry,
      (address) =>
        resources[address] ? { id: resources[address]!.id, extra: resources[address]!.extra } : undefined,
      options.signal ?? new AbortController().signal,
      () => {},
    );
    const started = await handler.startSession(
      ctx,
      entry.id,
      { id: entry.id, spec: entry.spec, ...(entry.extra ? { extra: entry.extra } : {}) },
      { spec: extended, ...(input.title ? { title: input.title } : {}) },
    );
    const read = await client.request<Record<string, unknown>>({
      method: "GET",
      path: `/sessions/${started.session_id}`,
    });
    return { info: info(entry.provider, entry.address, read.body), wire, client };
  }
  if (input.resources?.length && !wire.resources)
    throw refusing("--resource", sessionResourceProviders().join(", "));
  const applied = (kind: "files" | "memory_stores", name: string) => {
    const id = lookup(kind, name);
    if (!id)
      throw new StateError(
        `--resource: no applied ${kind === "files" ? "file" : "memory store"} ${name} on ${entry.provider}; declare it under ${kind} and run agents apply first`,
      );
    return id;
  };
  // The agent's declared session defaults (recorded at apply: memory stores, files, repositories
  // without their token), then the ones given here.
  const defaults = (entry.extra?.session as { resources?: unknown } | undefined)?.resources;
  const extraResources = [
    ...(wire.resources && Array.isArray(defaults) ? (defaults as Record<string, unknown>[]) : []),
    ...(input.resources ?? []).map((r) => sessionResourceToWire(wireKey(entry), r, applied)),
  ];
  let identityId: string | undefined;
  if (wire.api) {
    const identities = Object.values(resources).filter(
      (r) => r.provider === entry.provider && r.kind === "identities",
    );
    const chosen = input.identity
      ? identities.find((r) => r.name === input.identity)
      : identities.length === 1
        ? identities[0]
        : undefined;
    if (!chosen)
      throw new StateError(
        input.identity
          ? `no applied identity ${input.identity} (applied: ${identities.map((r) => r.name).join(", ") || "none"})`
          : `${entry.address} is a Forward Template: name the identity the session is for with --identity`,
      );
    identityId = chosen.id;
  } else if (input.env) throw refusing("--env", "provider_b");
  const environmentId = wire.api ? undefined : lookup("environments", spec.environment);
  if (!wire.api && !environmentId)
    throw new StateError(
      spec.environment
        ? `${entry.address}: its environment ${String(spec.environment)} is not applied; run agents apply first`
        : `${entry.address} declares no environment; a session needs one (add environment: <name>)`,
    );
  const vault = lookup("vaults", spec.vault);
  const body = wire.create({
    agentId: entry.id,
    ...(environmentId ? { environmentId } : {}),
    ...(input.title ? { title: input.title } : {}),
    ...(vault ? { vaultIds: [vault] } : {}),
    ...(identityId ? { identityId } : {}),
    ...(input.env ? { env: { ...(spec.environment_variables as object), ...input.env } } : {}),
    ...(extraResources.length ? { resources: extraResources } : {}),
  });
  const created = await client.request<Record<string, unknown>>({
    method: "POST",
    path: "/sessions",
    json: body,
  });
  return { info: info(entry.provider, entry.address, created.body), wire, client };
}

/** A session found by id, with what is needed to talk to it. */
export interface OpenSession {
  info: SessionInfo;
  wire: SessionWire;
  client: HttpClient;
}

/**
 * Finds session `id` on the providers agents.yaml configures, and refuses it unless its agent is
 * one this project applied.
 */
export async function openSession(options: EngineOptions, id: string): Promise<OpenSession> {
  const { runtime, resources } = await bind(options);
  const configured = Object.keys(options.project.blocks);
  const agents = Object.values(resources).filter((r) => r.kind === "agents");
  const tried: string[] = [];
  for (const [key, wire] of Object.entries(SESSION_WIRES)) {
    const provider = key.split("/")[0]!;
    if (!configured.includes(provider)) continue;
    if (!tried.includes(provider)) tried.push(provider);
    const client = clientFor(runtime, provider, wire);
    const res = await client.request<Record<string, unknown>>({
      method: "GET",
      path: `/sessions/${encodeURIComponent(id)}`,
      allowStatus: [400, 404, 405],
    });
    if (res.status !== 200 || typeof res.body !== "object" || res.body === null) continue;
    const agentId = wire.agentOf(res.body);
    const owner = agents.find((a) => a.provider === provider && a.id === agentId && wireKey(a) === key);
    if (!owner)
      throw new StateError(
        `session ${id} runs agent ${agentId ?? "(unknown)"} on ${provider}, which is not an agent of this project (${options.project.project}); use the project that applied it`,
      );
    return { info: info(provider, owner.address, res.body), wire, client };
  }
  throw new StateError(
    `no session ${id} on ${tried.join(", ") || "any provider"} (the providers ${options.project.configPath} configures)`,
  );
}

export async function getSession(options: EngineOptions, id: string): Promise<SessionInfo> {
  return (await openSession(options, id)).info;
}

/** Deletes the session (archives it where the provider only archives, as provider_b Forward). */
export async function deleteSession(options: EngineOptions, id: string): Promise<SessionInfo> {
  const open = await openSession(options, id);
  await removeSession(open);
  return open.info;
}

/** Deletes (or archives) a session already open; one already gone is not an error. */
export async function removeSession(open: OpenSession): Promise<void> {
  await open.client.request({
    method: open.wire.remove.method,
    path: open.wire.remove.path(open.info.id),
    allowStatus: [404],
  });
}

/** The sessions of this project's applied agents (of one agent with `agent`). */
export async function listSessions(
  options: EngineOptions,
  filter: { agent?: string } = {},
): Promise<SessionInfo[]> {
  const { runtime, resources } = await bind(options);
  const command = options.command ?? "agents session list";
  const agents = filter.agent
    ? [
        findApplied(
          { ...options, command },
          resources,
          filter.agent,
          "agents",
          `${command} lists agents' sessions`,
        ),
      ]
    : Object.values(resources)
        .filter((r) => r.kind === "agents" && SESSION_WIRES[wireKey(r)])
        .sort((a, b) => a.address.localeCompare(b.address));
  const out: SessionInfo[] = [];
  for (const entry of agents) {
    const wire = wireOf(entry);
    const client = clientFor(runtime, entry.provider, wire);
    let cursor: string | undefined;
    for (let page = 0; page < 1000; page++) {
      const query: Record<string, string | number> = { [wire.listFilter]: entry.id, limit: 100 };
      if (cursor) query[wire.sessionPaging === "page" ? "page" : "after_id"] = cursor;
      const res = await client.request<Record<string, unknown>>({ method: "GET", path: "/sessions", query });
      const data = Array.isArray(res.body?.data) ? (res.body.data as Record<string, unknown>[]) : [];
      // Filter again: a provider that ignores the filter must not show another agent's sessions.
      for (const s of data)
        if (wire.agentOf(s) === entry.id) out.push(info(entry.provider, entry.address, s));
      const next =
        wire.sessionPaging === "page"
          ? res.body?.next_page
          : res.body?.has_more === true
            ? res.body?.last_id
            : undefined;
      if (typeof next !== "string" || next === "" || data.length === 0) break;
      cursor = next;
    }
  }
  return out;
}

/** Sends one user message; returns the id of the event the provider created, when it says. */
export async function sendMessage(
  open: OpenSession,
  text: string,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const res = await open.client.request<Record<string, unknown>>({
    method: "POST",
    path: `/sessions/${open.info.id}/events`,
    json: open.wire.send(text),
    ...(signal ? { signal } : {}),
  });
  const b = res.body ?? {};
  const first = Array.isArray(b.data) ? (b.data[0] as Record<string, unknown> | undefined) : undefined;
  const id = b.id ?? b.event_id ?? first?.id;
  return typeof id === "string" ? id : undefined;
}

export interface FollowCallbacks {
  onEvent(event: SessionEvent): void;
  onReconnect?(attempt: number, cause: string): void;
  signal?: AbortSignal;
  /** Reconnect policy (tests shorten it). */
  maxReconnects?: number;
  backoffMs?(attempt: number): number;
  /** Holds the stream's next read while it is pending (stream.ts `pace`: the CLI's full stdout). */
  pace?(): Promise<void> | undefined;
}

/** The session's history, oldest first; with `follow`, then every new event until the signal aborts. */
export async function sessionEvents(
  open: OpenSession,
  opts: FollowCallbacks & { follow?: boolean; untilIdle?: boolean },
): Promise<void> {
  if (!opts.follow) {
    for (const e of await listEvents(open.client, open.wire, open.info.provider, open.info.id, opts.signal))
      opts.onEvent(e);
    return;
  }
  await follow({
    ...followBase(open, newFollowState(), opts),
    replayOnOpen: true,
    ...(opts.untilIdle ? { until: (e: SessionEvent) => endsTurn(e) && e.status !== "requires_action" } : {}),
  });
}

function followBase(open: OpenSession, state: FollowState, opts: FollowCallbacks) {
  return {
    client: open.client,
    wire: open.wire,
    provider: open.info.provider,
    sessionId: open.info.id,
    state,
    onEvent: opts.onEvent,
    ...(opts.onReconnect ? { onReconnect: opts.onReconnect } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.maxReconnects !== undefined ? { maxReconnects: opts.maxReconnects } : {}),
    ...(opts.backoffMs ? { backoffMs: opts.backoffMs } : {}),
    ...(opts.pace ? { pace: opts.pace } : {}),
  };
}

export interface TurnOptions extends FollowCallbacks {
  /** Asked for each tool call the agent's `ask` permission holds; default: deny. */
  confirm?(call: SessionEvent): Promise<"allow" | "deny">;
}

/**
 * One conversation with a session: remembers what was shown, so a turn never prints an event of
 * an earlier one, and a dropped stream resumes without duplicates.
 */
export class Conversation {
  private state: FollowState | undefined;
  private interrupted = false;
  constructor(readonly open: OpenSession) {}

  /**
   * After an interrupted turn: waits (bounded) until the session is idle again, then forgets what
   * was seen so the next turn starts from the history as it is (the rest of the old turn is not
   * shown as part of the new one).
   */
  private async settle(signal?: AbortSignal): Promise<void> {
    if (!this.interrupted) return;
    this.interrupted = false;
    for (let i = 0; i < 200; i++) {
      const res = await this.open.client.request<Record<string, unknown>>({
        method: "GET",
        path: `/sessions/${this.open.info.id}`,
        ...(signal ? { signal } : {}),
      });
      if (res.body?.status !== "running") break;
      await new Promise((r) => setTimeout(r, 50));
    }
    this.state = undefined;
  }

  private async primed(signal?: AbortSignal): Promise<FollowState> {
    if (this.state) return this.state;
    const st = newFollowState();
    for (const e of await listEvents(
      this.open.client,
      this.open.wire,
      this.open.info.provider,
      this.open.info.id,
      signal,
    )) {
      st.seen.add(e.id);
      st.lastId = e.id;
    }
    this.state = st;
    return st;
  }

  /**
   * Sends `text` and delivers the turn's events until the agent is idle again (or the session
   * ended). Tool calls held for confirmation are answered through `confirm`. Returns false when
   * the signal stopped it first (the caller interrupted the turn).
   */
  async turn(text: string, opts: TurnOptions): Promise<boolean> {
    await this.settle(opts.signal);
    const state = await this.primed(opts.signal);
    const calls = new Map<string, SessionEvent>();
    const pending: Promise<void>[] = [];
    const ended = await follow({
      ...followBase(this.open, state, opts),
      onOpen: async () => {
        await sendMessage(this.open, text, opts.signal);
      },
      onEvent: (e) => {
        opts.onEvent(e);
        if (e.type === "tool_call" && e.tool) calls.set(e.tool.id, e);
        if (e.type === "status" && e.status === "requires_action")
          for (const id of e.awaiting ?? []) pending.push(this.answer(calls.get(id), id, opts));
      },
      until: (e) => endsTurn(e),
    });
    await Promise.all(pending);
    if (!ended) this.interrupted = true;
    return ended;
  }

  private async answer(call: SessionEvent | undefined, id: string, opts: TurnOptions): Promise<void> {
    const wire = this.open.wire;
    if (!wire.confirm) return;
    const result = call && opts.confirm ? await opts.confirm(call) : "deny";
    await this.open.client.request({
      method: "POST",
      path: `/sessions/${this.open.info.id}/events`,
      json: wire.confirm(id, result),
    });
  }

  /** Stops the turn in progress where the provider can; false where it cannot (reading stops only). */
  async interrupt(): Promise<boolean> {
    this.interrupted = true;
    const how = this.open.wire.interrupt;
    if (!how) return false;
    await this.open.client.request({
      method: "POST",
      path: how.path(this.open.info.id),
      json: how.body,
      allowStatus: [400, 409],
    });
    return true;
  }
}
