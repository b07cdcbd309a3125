import type { Request, Response } from "express";
import { pageParams, paginate } from "./http.js";
import type { EventStream, Kit, Obj } from "./state.js";
import type { Json } from "./validate.js";

const HEARTBEAT_MS = 15_000;

/** Appends one event to a session's or thread's log and pushes it to that owner's live streams. */
export function appendEvent(
  kit: Kit,
  log: Map<string, Obj[]>,
  ownerId: string,
  type: string,
  fields: Record<string, Json>,
): Obj {
  const now = kit.now();
  const e: Obj = { id: kit.newId("event"), type, ...fields, created_at: now };
  // SDK 1.12 types every server-side event with `processed_at` (required on agent and status events);
  // a status_idle event also carries `stop_details` (null unless the turn was refused).
  if (kit.dialect.name === "provider_c") {
    e.processed_at = now;
    if (type.endsWith("status_idle") && e.stop_details === undefined) e.stop_details = null;
  }
  log.get(ownerId)?.push(e);
  for (const stream of kit.state().streams.get(ownerId) ?? []) stream.push(e);
  return e;
}

/** An event log page, oldest first unless `order=desc`; the cursor is the event's position. */
export function eventPage(kit: Kit, req: Request, events: Obj[]) {
  const index = new Map(events.map((e, i) => [e.id, i]));
  return paginate(events, (e) => [index.get(e.id) ?? 0], pageParams(req.query, kit.dialect.limits, "asc"));
}

/** SSE of the events appended after the connection opens (no cursor: clients replay the list). */
export function streamEvents(kit: Kit, req: Request, res: Response, ownerId: string): void {
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  res.flushHeaders();
  const streams = kit.state().streams;
  const open = streams.get(ownerId) ?? new Set();
  streams.set(ownerId, open);
  // provider_c names every frame (`event: <type>`): SDK 1.12's SSE reader drops frames without an
  // event name, so unnamed frames would never reach an SDK client.
  const named = kit.dialect.name === "provider_c";
  const heartbeat = setInterval(() => res.write(": ping\n\n"), HEARTBEAT_MS);
  // provider_c previews a reply while it is written (event_start, then event_delta per chunk) on
  // connections that ask with `event_deltas=agent.message`; previews carry no `id:` and never enter
  // the history (SDK 1.12 EventStreamParams.event_deltas).
  const deltas = named && [req.query.event_deltas].flat().includes("agent.message");
  const stream: EventStream = {
    push: (e) => res.write(`id: ${e.id}\n${named ? `event: ${e.type}\n` : ""}data: ${JSON.stringify(e)}\n\n`),
    close: () => res.end(),
    ...(deltas
      ? {
          preview: (f: Record<string, unknown>) =>
            res.write(`event: ${f.type}\ndata: ${JSON.stringify(f)}\n\n`),
        }
      : {}),
    destroy: () => res.write("", () => res.destroy()),
  };
  open.add(stream);
  // The response closes when the client goes away or when the owner is deleted (closeStreams).
  res.on("close", () => {
    clearInterval(heartbeat);
    open.delete(stream);
  });
}

/** Ends the live streams of a deleted session or thread, so no client waits forever on a dead owner. */
export function closeStreams(kit: Kit, ownerId: string): void {
  const streams = kit.state().streams;
  for (const stream of streams.get(ownerId) ?? []) stream.close();
  streams.delete(ownerId);
}
