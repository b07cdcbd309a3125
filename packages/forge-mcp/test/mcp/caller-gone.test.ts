import { EventEmitter } from "node:events";
import type { ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { CallerGone } from "../../src/mcp/caller-gone.js";

/**
 * A call's abort signal is made only when something reads it (src/mcp/caller-gone.ts), and
 * says the same as an AbortController made up front would: aborted once the caller went away
 * before the answer, whenever it is read; never by a close after the answer.
 */
describe("CallerGone: the call's signal, made on demand", () => {
  const response = () => new EventEmitter() as unknown as ServerResponse;
  it.each([
    ["read, then the caller goes away: aborted", ["read", "close"], true],
    ["the caller goes away, then read: aborted", ["close", "read"], true],
    ["answered, then the caller goes away: not aborted", ["read", "answered", "close"], false],
    ["never read, answered, closed, then read: not aborted", ["answered", "close", "read"], false],
    ["read, nothing else: not aborted", ["read"], false],
  ] as const)("%s", (_name, steps, aborted) => {
    const res = response();
    const gone = new CallerGone(res);
    let signal: AbortSignal | undefined;
    for (const step of steps) {
      if (step === "read") signal = gone.signal;
      else if (step === "close") (res as unknown as EventEmitter).emit("close");
      else gone.answered();
    }
    expect(signal?.aborted).toBe(aborted);
    expect(gone.signal).toBe(signal);
    // once answered or closed, nothing of the call stays on the response
    const settled = steps.some((s) => s === "answered" || s === "close");
    expect((res as unknown as EventEmitter).listenerCount("close")).toBe(settled ? 0 : 1);
  });
});
