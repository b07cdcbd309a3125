import type { Request, Response } from "express";

interface StreamEvent {
  id: string;
  [k: string]: unknown;
}

/**
 * Live event fan-out for session streams. Subscribers are kept outside the simulator state so a
 * state dump stays plain JSON; `close` ends every open stream (session deleted, simulator reset).
 */
export class EventHub {
  private readonly subs = new Map<string, Set<Response>>();

  open(req: Request, res: Response, key: string, backlog: StreamEvent[], heartbeatMs = 15_000): void {
    res.status(200);
    res.setHeader("content-type", "text/event-stream");
    res.setHeader("cache-control", "no-cache");
    res.setHeader("connection", "keep-alive");
    res.flushHeaders();
    for (const e of backlog) writeFrame(res, e);
    let set = this.subs.get(key);
    if (!set) {
      set = new Set();
      this.subs.set(key, set);
    }
    set.add(res);
    const beat = setInterval(() => res.write("event: heartbeat\ndata: {}\n\n"), heartbeatMs);
    beat.unref();
    req.on("close", () => {
      clearInterval(beat);
      set.delete(res);
    });
  }

  publish(key: string, event: StreamEvent): void {
    for (const res of this.subs.get(key) ?? []) writeFrame(res, event);
  }

  /** Cuts every open stream of `key` without ending it (a dropped connection). */
  destroy(key: string): void {
    // What was written reaches the client first; then the connection dies mid-response.
    for (const res of this.subs.get(key) ?? []) res.write("", () => res.destroy());
    this.subs.delete(key);
  }

  close(key: string): void {
    for (const res of this.subs.get(key) ?? []) res.end();
    this.subs.delete(key);
  }

  closeAll(): void {
    for (const key of [...this.subs.keys()]) this.close(key);
  }
}

function writeFrame(res: Response, event: StreamEvent): void {
  res.write(`id: ${event.id}\ndata: ${JSON.stringify(event)}\n\n`);
}
