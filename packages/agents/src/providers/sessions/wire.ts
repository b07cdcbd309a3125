// How each provider's session API is spoken: paths, bodies, lists, resume. Data per provider and
// API root, so the engine never branches on a provider's name (docs/cli.md §Sessions).
import { type EventReader, readManagedEvent, readProviderAEvent } from "./events.js";

export interface SessionCreateInput {
  agentId: string;
  environmentId?: string;
  title?: string;
  vaultIds?: string[];
  /** Forward sessions: the identity and the template's environment variables (`--env`). */
  identityId?: string;
  env?: Record<string, string>;
  /** Session resources in the wire form (the agent's declared defaults, then `--resource`). */
  resources?: Record<string, unknown>[];
}

export type SessionResourceType = "file" | "memory_store" | "git_repository";

/** What a provider's session create takes under `resources` (docs/cli.md §Sessions). */
export interface SessionResourceSupport {
  types: readonly SessionResourceType[];
  /** Where relative mount paths go (and absolute ones must already be). */
  root: string;
  /** A memory store resource may carry `access` and `instructions`. */
  memoryStoreOptions: boolean;
  /** Named in messages when the key alone does not say which sessions (provider_b: managed). */
  flavour?: string;
}

export interface SessionWire {
  /** The API root the session lives on (`http`, or a named root such as provider_b's `forward`). */
  api?: string;
  /** What the session API calls the agent in lists (`agent_id`, or `template_id` on Forward). */
  listFilter: string;
  /** The agent id a session names, from the session object. */
  agentOf(session: Record<string, unknown>): string | undefined;
  create?(input: SessionCreateInput): Record<string, unknown>;
  /** The session resources create takes; absent: none (`--resource` is refused, naming who has them). */
  resources?: SessionResourceSupport;
  send(text: string): Record<string, unknown>;
  /** The body that allows or denies a held tool call; absent where the provider has no `ask`. */
  confirm?(toolUseId: string, result: "allow" | "deny"): Record<string, unknown>;
  /** How a turn is stopped; absent where the provider has no way (the client only stops reading). */
  interrupt?: { path(id: string): string; body: Record<string, unknown> };
  remove: { method: "DELETE" | "POST"; path(id: string): string };
  /** Event list paging: `page` → `next_page`, or `after_id` → `last_id` + `has_more`. */
  eventPaging: "page" | "after_id";
  sessionPaging: "page" | "after_id";
  /** `last-event-id`: the stream resumes after an id; `replay`: reconnect, list, skip what was seen. */
  resume: "last-event-id" | "replay";
  /** Query of the stream URL (provider_c asks for reply previews). */
  streamQuery?: Record<string, string>;
  read: EventReader;
}

const userMessage = (text: string) => ({
  events: [{ type: "user.message", content: [{ type: "text", text }] }],
});
const confirmation = (tool_use_id: string, result: "allow" | "deny") => ({
  events: [{ type: "user.tool_confirmation", tool_use_id, result }],
});
const agentIdOf = (s: Record<string, unknown>) => {
  const a = s.agent;
  if (typeof a === "string") return a;
  return typeof a === "object" && a !== null ? String((a as { id?: unknown }).id) : undefined;
};
const compactBody = (o: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
const deleteSession = { method: "DELETE" as const, path: (id: string) => `/sessions/${id}` };

const managedCreate = (i: SessionCreateInput) =>
  compactBody({
    agent: i.agentId,
    environment_id: i.environmentId,
    title: i.title,
    vault_ids: i.vaultIds,
    resources: i.resources?.length ? i.resources : undefined,
  });

/** Every provider and API root with sessions; the key is `provider` or `provider/api`. */
export const SESSION_WIRES: Record<string, SessionWire> = {
  provider_a: {
    listFilter: "agent_id",
    agentOf: agentIdOf,
    create: managedCreate,
    // Files only (provider_a has no memory stores and no repository resources).
    resources: { types: ["file"], root: "/mnt", memoryStoreOptions: false },
    send: (text) => ({ input: [{ role: "user", type: "message", content: [{ type: "text", text }] }] }),
    remove: deleteSession,
    eventPaging: "page",
    sessionPaging: "page",
    resume: "replay",
    read: readProviderAEvent,
  },
  // Managed sessions of provider_b are created from the declaration by the agent handler
  // (environment variables, repositories, memory stores), so there is no `create` here.
  provider_b: {
    listFilter: "agent_id",
    agentOf: agentIdOf,
    // Built by the agent handler from the declaration with the extra resources appended.
    resources: {
      types: ["file", "memory_store", "git_repository"],
      root: "/data",
      memoryStoreOptions: false,
      flavour: "managed",
    },
    send: userMessage,
    confirm: confirmation,
    interrupt: { path: (id) => `/sessions/${id}/cancel`, body: {} },
    remove: deleteSession,
    eventPaging: "after_id",
    sessionPaging: "page",
    resume: "last-event-id",
    read: readManagedEvent,
  },
  "provider_b/forward": {
    api: "forward",
    listFilter: "template_id",
    agentOf: (s) => (typeof s.template_id === "string" ? s.template_id : undefined),
    create: (i) =>
      compactBody({
        identity_id: i.identityId,
        template_id: i.agentId,
        incremental_streaming_enabled: false,
        title: i.title,
        ...(i.env && Object.keys(i.env).length ? { config: { environment_variables: i.env } } : {}),
      }),
    send: userMessage,
    confirm: confirmation,
    remove: { method: "POST", path: (id) => `/sessions/${id}/archive` },
    eventPaging: "after_id",
    sessionPaging: "after_id",
    resume: "last-event-id",
    read: readManagedEvent,
  },
  provider_c: {
    listFilter: "agent_id",
    agentOf: agentIdOf,
    create: managedCreate,
    resources: {
      types: ["file", "memory_store", "git_repository"],
      root: "/workspace",
      memoryStoreOptions: true,
    },
    send: userMessage,
    confirm: confirmation,
    interrupt: { path: (id) => `/sessions/${id}/events`, body: { events: [{ type: "user.interrupt" }] } },
    remove: deleteSession,
    eventPaging: "page",
    sessionPaging: "page",
    resume: "replay",
    streamQuery: { event_deltas: "agent.message" },
    read: readManagedEvent,
  },
  provider_d: {
    listFilter: "agent_id",
    agentOf: agentIdOf,
    create: managedCreate,
    // No repository resources; a memory store resource is its id alone.
    resources: { types: ["file", "memory_store"], root: "/mnt", memoryStoreOptions: false },
    send: userMessage,
    confirm: confirmation,
    remove: deleteSession,
    eventPaging: "page",
    sessionPaging: "page",
    resume: "replay",
    read: readManagedEvent,
  },
};

/** The providers that have sessions, for error messages. */
export const PROVIDERS_WITH_SESSIONS = [...new Set(Object.keys(SESSION_WIRES).map((k) => k.split("/")[0]!))];
