// Follows a session's event stream: parses server-sent events, turns them into neutral events, and
// when the connection drops resumes from the last event seen without delivering any event twice
// (docs/cli.md §Sessions: dropped streams).
import { createParser } from "eventsource-parser";
import { delay, type HttpClient, ProviderHttpError } from "../http.js";
import { UnforeseeableError } from "../unforeseeable.js";
import type { SessionEvent } from "./events.js";
import type { SessionWire } from "./wire.js";

/** The stream could not be resumed: the provider refused or dropped every reconnect. */
export class StreamCutError extends UnforeseeableError {
  override readonly name = "StreamCutError";
  constructor(message: string) {
    super("network", message);
  }
}

export interface FollowState {
  /** Ids of events already delivered (never delivered again). */
  seen: Set<string>;
  /** The id of the last event delivered (the resume cursor where the provider takes one). */
  lastId?: string;
  /** Ids of replies shown as previews (their buffered event is marked `streamed`). */
  previewed: Set<string>;
}

export interface FollowOptions {
  client: HttpClient;
  wire: SessionWire;
  provider: string;
  sessionId: string;
  state: FollowState;
  onEvent(event: SessionEvent): void;
  /** Stop right after an event for which this returns true (the end of a turn). */
  until?(event: SessionEvent): boolean;
  /** Called once the first connection is open (a turn sends its message then). */
  onOpen?(): Promise<void>;
  /** Deliver the history (what was not seen) once the first connection is open: `events --follow`. */
  replayOnOpen?: boolean;
  signal?: AbortSignal;
  /** Reconnects in a row that may fail before the stream counts as cut for good (default 3). */
  maxReconnects?: number;
  /** Wait before reconnect n (1-based); default 100 ms × n. */
  backoffMs?(attempt: number): number;
  /** Each reconnect (the CLI says so on stderr). */
  onReconnect?(attempt: number, cause: string): void;
  /**
   * Asked after the events of each chunk of the stream were delivered: a promise holds the next
   * read until it settles. The CLI waits there while its stdout is full, so a reader slower than
   * the stream makes the stream wait (TCP backpressure) instead of the output queueing in memory.
   */
  pace?(): Promise<void> | undefined;
}

export function newFollowState(): FollowState {
  return { seen: new Set(), previewed: new Set() };
}

/** Delivers one neutral event unless it was seen; true when `until` says the follow is over. */
function deliver(o: FollowOptions, e: SessionEvent): boolean {
  const st = o.state;
  if (e.type === "text_delta") {
    if (st.seen.has(e.id)) return false;
    st.previewed.add(e.id);
  } else {
    if (e.id && st.seen.has(e.id)) return false;
    if (e.id) {
      st.seen.add(e.id);
      st.lastId = e.id;
    }
    if (e.type === "text" && st.previewed.delete(e.id)) e.streamed = true;
  }
  o.onEvent(e);
  return o.until?.(e) ?? false;
}

/** Every event of the history, oldest first (all pages). */
export async function listEvents(
  client: HttpClient,
  wire: SessionWire,
  provider: string,
  sessionId: string,
  signal?: AbortSignal,
): Promise<SessionEvent[]> {
  const out: SessionEvent[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 10_000; page++) {
    const query: Record<string, string | number> = { limit: 100 };
    if (cursor) query[wire.eventPaging === "page" ? "page" : "after_id"] = cursor;
    const res = await client.request<Record<string, unknown>>({
      method: "GET",
      path: `/sessions/${sessionId}/events`,
      query,
      ...(signal ? { signal } : {}),
    });
    const data = Array.isArray(res.body?.data) ? (res.body.data as Record<string, unknown>[]) : [];
    for (const raw of data) {
      const e = wire.read(raw, sessionId, provider);
      if (e) out.push(e);
    }
    const next =
      wire.eventPaging === "page"
        ? res.body?.next_page
        : res.body?.has_more === true
          ? (res.body?.last_id ?? (data.at(-1)?.id as unknown))
          : undefined;
    if (typeof next !== "string" || next === "" || data.length === 0) break;
    cursor = next;
  }
  return out;
}

/**
 * Follows the stream until `until` is met, the signal aborts, or the stream cannot be resumed
 * (StreamCutError). Returns true when `until` ended it.
 */
export async function follow(o: FollowOptions): Promise<boolean> {
  if (!o.client.stream)
    throw new UnforeseeableError("internal", `${o.provider}: this HTTP client cannot stream`);
  const max = o.maxReconnects ?? 3;
  const backoff = o.backoffMs ?? ((n: number) => 100 * n);
  let failures = 0;
  let opened = false;
  for (;;) {
    if (o.signal?.aborted) return false;
    let cause = "the stream ended";
    try {
      const headers: Record<string, string> = {};
      if (o.wire.resume === "last-event-id" && o.state.lastId) headers["last-event-id"] = o.state.lastId;
      const stream = await o.client.stream({
        path: `/sessions/${o.sessionId}/events/stream`,
        ...(o.wire.streamQuery ? { query: o.wire.streamQuery } : {}),
        headers,
        ...(o.signal ? { signal: o.signal } : {}),
      });
      try {
        const first = !opened;
        if (first) {
          opened = true;
          await o.onOpen?.();
        }
        if ((first && o.replayOnOpen) || (!first && o.wire.resume === "replay")) {
          // Events of the gap come from the history; the stream only has what follows the reconnect.
          for (const e of await listEvents(o.client, o.wire, o.provider, o.sessionId, o.signal))
            if (deliver(o, e)) return true;
        }
        let done = false;
        const parser = createParser({
          onEvent: (message) => {
            if (done || message.event === "heartbeat") return;
            let raw: unknown;
            try {
              raw = JSON.parse(message.data);
            } catch {
              return;
            }
            if (typeof raw !== "object" || raw === null) return;
            const e = o.wire.read(raw as Record<string, unknown>, o.sessionId, o.provider);
            if (!e) return;
            failures = 0;
            if (deliver(o, e)) done = true;
          },
        });
        for await (const chunk of stream.chunks) {
          parser.feed(chunk);
          if (done) return true;
          const held = o.pace?.();
          if (held) await held;
        }
      } finally {
        stream.close();
      }
    } catch (error) {
      if (o.signal?.aborted) return false;
      // A refusal the client already sent again until its refusals were spent (it waited out each
      // pause) is not a dropped stream: reconnecting would only be refused again.
      if (
        error instanceof ProviderHttpError &&
        (error.refused || (error.status >= 400 && error.status < 500 && error.status !== 429))
      )
        throw error;
      cause = error instanceof Error ? error.message : String(error);
    }
    failures++;
    if (failures > max)
      throw new StreamCutError(
        `the event stream of session ${o.sessionId} was cut and could not be resumed after ${max} attempts (${cause})`,
      );
    o.onReconnect?.(failures, cause);
    await delay(backoff(failures), o.signal).catch(() => {});
  }
}
