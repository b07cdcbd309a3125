import { invalid } from "./errors.js";
import type { Obj, SkillFile, State } from "./state.js";
import { fingerprintSecrets } from "./vaults.js";

/**
 * `GET /_sim/state`: every object the simulator holds, archived ones included, one array per kind,
 * each object exactly as the wire shows it plus the simulator-only fields documented in docs/sims.md
 * (`content_base64` of files and skill files, `secrets_sha256` of credentials). Secrets themselves
 * and API keys are never dumped.
 */
export function dumpState(s: State): Record<string, unknown> {
  const out: Record<string, unknown> = {
    environments: [...s.environments.values()],
    reserved_environment_names: [...s.reservedNames].map(([name, until]) => ({
      name,
      reserved_until: new Date(until).toISOString(),
    })),
    vaults: [...s.vaults.values()],
    credentials: [...s.credentials.values()].map((c) => ({
      ...c,
      secrets_sha256: s.secrets.has(c.id)
        ? fingerprintSecrets(s.secrets.get(c.id))
        : (s.seededFingerprints.get(c.id) ?? {}),
    })),
    files: [...s.files.values()].map((f) => ({ ...f, content_base64: s.fileContents.get(f.id) ?? "" })),
    skills: [...s.skills.values()],
    skill_versions: [...s.skillVersions].map(([key, v]) => ({ ...v, files: s.skillFiles.get(key) ?? [] })),
    agents: [...s.agents.values()],
    agent_versions: [...s.agentVersions.values()].flat(),
    memory_stores: [...s.memoryStores.values()],
    memories: [...s.memories.values()],
    memory_versions: [...s.memoryVersions.values()],
    deployments: [...s.deployments.values()],
    deployment_runs: [...s.deploymentRuns.values()],
    sessions: [...s.sessions.values()],
    session_threads: [...s.sessionThreads.values()],
    thread_events: [...s.threadEvents].flatMap(([threadId, events]) =>
      events.map((e) => ({ thread_id: threadId, ...e })),
    ),
    session_events: [...s.sessionEvents].flatMap(([sessionId, events]) =>
      events.map((e) => ({ session_id: sessionId, ...e })),
    ),
  };
  return out;
}

function objects(v: unknown, key: string): Obj[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) throw invalid(`${key}: expected an array`);
  return v.map((o, i) => {
    if (!o || typeof o !== "object" || typeof (o as Obj).id !== "string")
      throw invalid(`${key}[${i}]: expected an object with an id`);
    return structuredClone(o as Obj);
  });
}

/**
 * `POST /_sim/seed`: upserts objects given in the dump's shape (arrays per kind, matched by id), plus
 * `api_keys` (extra accepted keys), credential `secrets` (plain values) and `content_base64`.
 * Returns how many objects of each kind were seeded.
 */
export function seedState(s: State, body: unknown): Record<string, number> {
  if (!body || typeof body !== "object") throw invalid("seed: expected a JSON object");
  const b = body as Record<string, unknown>;
  const counts: Record<string, number> = {};
  const put = (key: string, map: Map<string, Obj>, each?: (o: Obj) => Obj) => {
    const list = objects(b[key], key);
    for (const o of list) map.set(o.id, each ? each(o) : o);
    if (list.length) counts[key] = list.length;
  };
  if (b.api_keys !== undefined) {
    if (!Array.isArray(b.api_keys) || b.api_keys.some((k) => typeof k !== "string" || !k))
      throw invalid("api_keys: expected strings");
    for (const k of b.api_keys as string[]) s.apiKeys.add(k);
    counts.api_keys = b.api_keys.length;
  }
  put("environments", s.environments);
  for (const r of (b.reserved_environment_names as { name: string; reserved_until: string }[] | undefined) ??
    []) {
    s.reservedNames.set(r.name, Date.parse(r.reserved_until));
  }
  put("vaults", s.vaults);
  put("credentials", s.credentials, (c) => {
    const { secrets, secrets_sha256: fingerprints, ...rest } = c;
    if (secrets && typeof secrets === "object") s.secrets.set(c.id, secrets as Record<string, string>);
    else if (fingerprints && typeof fingerprints === "object") {
      s.seededFingerprints.set(c.id, fingerprints as Record<string, string>);
    }
    return rest as Obj;
  });
  put("files", s.files, (f) => {
    const { content_base64, ...rest } = f;
    s.fileContents.set(f.id, typeof content_base64 === "string" ? content_base64 : "");
    return rest as Obj;
  });
  put("skills", s.skills);
  for (const v of objects(b.skill_versions, "skill_versions")) {
    const { files, ...rest } = v;
    const key = `${v.skill_id}@${v.version ?? v.id}`;
    s.skillVersions.set(key, rest as Obj);
    s.skillFiles.set(key, (files as SkillFile[] | undefined) ?? []);
    counts.skill_versions = (counts.skill_versions ?? 0) + 1;
  }
  put("agents", s.agents);
  const versions = objects(b.agent_versions, "agent_versions");
  for (const a of objects(b.agents, "agents")) {
    if (!versions.some((v) => v.id === a.id)) versions.push(a);
  }
  for (const v of versions) {
    const history = (s.agentVersions.get(v.id) ?? []).filter((h) => h.version !== v.version);
    history.push(v);
    history.sort((x, y) => x.version - y.version);
    s.agentVersions.set(v.id, history);
  }
  put("memory_stores", s.memoryStores);
  put("memories", s.memories);
  put("memory_versions", s.memoryVersions);
  put("deployments", s.deployments);
  put("deployment_runs", s.deploymentRuns);
  put("sessions", s.sessions, (o) => {
    if (!s.sessionEvents.has(o.id)) s.sessionEvents.set(o.id, []);
    return o;
  });
  put("session_threads", s.sessionThreads, (t) => {
    if (!s.threadEvents.has(t.id)) s.threadEvents.set(t.id, []);
    return t;
  });
  for (const e of objects(b.thread_events, "thread_events")) {
    const { thread_id, ...rest } = e;
    const list = s.threadEvents.get(String(thread_id)) ?? [];
    list.push(rest as Obj);
    s.threadEvents.set(String(thread_id), list);
    counts.thread_events = (counts.thread_events ?? 0) + 1;
  }
  for (const e of objects(b.session_events, "session_events")) {
    const { session_id, ...rest } = e;
    const list = s.sessionEvents.get(String(session_id)) ?? [];
    list.push(rest as Obj);
    s.sessionEvents.set(String(session_id), list);
    counts.session_events = (counts.session_events ?? 0) + 1;
  }
  return counts;
}
