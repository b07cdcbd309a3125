import type { Request, Router } from "express";
import { body, str } from "../kit/body.js";
import { h, WireError } from "../kit/errors.js";
import { playHubTurn, stopHubTurns, streamCutFor } from "../kit/hub-turns.js";
import { checkMetadata, isObject } from "../kit/records.js";
import { getView } from "../kit/routes.js";
import { put, type Rec } from "../kit/store.js";
import { bad, type Ctx, find, listPage, mountPath, now, removeRecord, stamp, view } from "./common.js";
import { fileStatus } from "./uploads.js";

/** Only files mount (under /mnt, unique paths); the file must have passed its audit. */
export function fileResources(ctx: Ctx, value: unknown): Record<string, unknown>[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw bad("resources must be an array");
  const paths = new Set<string>();
  return value.map((r, i) => {
    const at = `resources[${i}]`;
    if (!isObject(r) || r.type !== "file") throw bad(`${at}.type must be "file"`);
    const file = typeof r.file_id === "string" ? ctx.state.objects.files.get(r.file_id) : undefined;
    if (!file) throw bad(`${at}.file_id does not name a file`);
    if (fileStatus(ctx, file) !== "available")
      throw bad(`${at}: source file ${file.id} is unavailable (${String(file.status)})`);
    const path = mountPath(r.mount_path, `${at}.mount_path`);
    if (paths.has(path)) throw bad(`${at}.mount_path ${path} is used twice`);
    paths.add(path);
    return { type: "file", file_id: file.id, mount_path: path };
  });
}

export function vaultIds(ctx: Ctx, value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw bad("vault_ids must be an array");
  for (const id of value) {
    const v = typeof id === "string" ? ctx.state.objects.vaults.get(id) : undefined;
    if (!v || v.archived_at) throw bad(`vault ${String(id)} not found`);
  }
  return value as string[];
}

export function createSession(ctx: Ctx, b: Record<string, unknown>): Rec {
  if (typeof b.agent !== "string") throw bad("agent must be an agent id string");
  const agent = ctx.state.objects.agents.get(b.agent);
  if (!agent || agent.archived_at) throw bad(`agent ${b.agent} not found`);
  const envId = str(b, "environment_id", true)!;
  if (!ctx.state.objects.environments.has(envId)) throw bad(`environment ${envId} not found`);
  const rec = put(ctx.state, "sessions", {
    id: ctx.ids.next("sesn_", 26),
    type: "session",
    agent: { id: agent.id, type: "agent", version: agent.version, name: agent.name },
    environment_id: envId,
    title: str(b, "title") ?? null,
    metadata: checkMetadata(b.metadata),
    vault_ids: vaultIds(ctx, b.vault_ids),
    resources: fileResources(ctx, b.resources),
    // Accepted and kept, but memory stores do not exist on this provider.
    memory_store_ids: Array.isArray(b.memory_store_ids) ? b.memory_store_ids : [],
    status: "idle",
    ...stamp(ctx),
  });
  ctx.state.events.set(rec.id, []);
  return rec;
}

export function appendEvent(ctx: Ctx, session: Rec, fields: Record<string, unknown>): Rec {
  const event: Rec = { id: ctx.ids.next("evt_"), session_id: session.id, ...fields, created_at: now(ctx) };
  ctx.state.seq.assign(event.id);
  ctx.state.events.get(session.id)?.push(event);
  ctx.state.hub.publish(session.id, event);
  return event;
}

/** Validates `input` messages: `{role:"user", type:"message", content:[{type:"text", text}]}`. */
export function messages(value: unknown, field: string): Array<{ text: string }> {
  if (!Array.isArray(value) || value.length === 0) throw bad(`${field} must be a non-empty array`);
  return value.map((m, i) => {
    if (!isObject(m) || m.type !== "message" || m.role !== "user")
      throw bad(`${field}[${i}] must be {role:"user", type:"message"}`);
    const content = m.content;
    if (
      !Array.isArray(content) ||
      content.length === 0 ||
      content.some((c) => !isObject(c) || c.type !== "text" || typeof c.text !== "string")
    ) {
      throw bad(`${field}[${i}].content must be text blocks`);
    }
    return { text: (content as Array<{ text: string }>).map((c) => c.text).join("\n") };
  });
}

/** The scripted agent's turn for one user message (docs/sims.md §Session turns). */
export function agentTurn(ctx: Ctx, s: Rec, text: string): void {
  playHubTurn({
    vocabulary: "provider_a",
    state: ctx.state,
    sim: ctx,
    rec: s,
    session: {
      id: s.id,
      hub: ctx.state.hub,
      append: (fields) => appendEvent(ctx, s, fields),
      setStatus: (value) => {
        s.status = value;
        s.updated_at = now(ctx);
      },
    },
    text,
    tools: ctx.state.objects.agents.get((s.agent as Rec).id as string)?.tools,
  });
}

export function sessionRoutes(r: Router, ctx: Ctx): void {
  const get = (req: Request) => find(ctx, "sessions", req.params.id as string, "session");
  r.post(
    "/sessions",
    h((req, res) => {
      const b = body(req);
      if (
        b.resources !== undefined &&
        Array.isArray(b.resources) &&
        b.resources.some((x) => isObject(x) && x.type === "github_repository")
      ) {
        throw bad("git repository session resources are not supported");
      }
      res.json(view(createSession(ctx, b)));
    }),
  );
  r.get(
    "/sessions",
    h((req, res) => {
      const agentId = req.query.agent_id;
      const items = [...ctx.state.objects.sessions.values()].filter(
        (s) => agentId === undefined || (s.agent as Rec).id === agentId,
      );
      res.json(listPage(ctx, req, items));
    }),
  );
  getView(r, "/sessions/:id", (req) => get(req));
  r.delete(
    "/sessions/:id",
    h((req, res) => {
      const s = get(req);
      ctx.state.events.delete(s.id);
      stopHubTurns(s);
      ctx.state.hub.close(s.id);
      res.json(removeRecord(ctx, "sessions", s, "session"));
    }),
  );
  r.post(
    "/sessions/:id/events",
    h((req, res) => {
      const s = get(req);
      const created = messages(body(req).input, "input").map(({ text }) => {
        const user = appendEvent(ctx, s, {
          type: "message",
          role: "user",
          content: [{ type: "text", text }],
        });
        agentTurn(ctx, s, text);
        return user;
      });
      s.updated_at = now(ctx);
      res.json({ id: created[0]!.id, data: created.map(view) });
    }),
  );
  r.get(
    "/sessions/:id/events",
    h((req, res) => {
      // An `after_id` is silently ignored upstream; only `page` moves the cursor.
      const s = get(req);
      const page = listPage(ctx, req, ctx.state.events.get(s.id) ?? []);
      res.json({ ...page, has_more: page.next_page !== null });
    }),
  );
  r.get(
    "/sessions/:id/events/stream",
    h((req, res) => {
      // No resume cursor upstream: only events after the connection opened are sent.
      const s = get(req);
      if (streamCutFor(ctx.state, s.id))
        throw new WireError(
          503,
          "ServiceUnavailable",
          `the event stream of ${s.id} is unavailable (simulated)`,
        );
      ctx.state.hub.open(req, res, s.id, []);
    }),
  );
}
