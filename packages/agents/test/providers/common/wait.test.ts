import { describe, expect, it } from "vitest";
import { pollUntil, WaitTimeoutError } from "../../../src/providers/common/wait.js";

describe("bounded, visible waits", () => {
  const policy = { initialMs: 10, factor: 2, maxDelayMs: 40, timeoutMs: 100 };
  it("announces once and returns when done", async () => {
    const notes: string[] = [];
    let n = 0;
    let clock = 0;
    const value = await pollUntil({
      what: "scan",
      policy,
      read: async () => ++n,
      classify: (v) => (v >= 3 ? "done" : "pending"),
      onWait: (m) => notes.push(m),
      sleep: async (ms) => {
        clock += ms;
      },
      now: () => clock,
    });
    expect(value).toBe(3);
    expect(notes).toEqual(["waiting for scan (up to 0 s)"]);
  });
  it("times out with a message that says what is pending", async () => {
    let clock = 0;
    await expect(
      pollUntil({
        what: "scan of skill s",
        policy,
        read: async () => 0,
        classify: () => "pending",
        sleep: async (ms) => {
          clock += ms;
        },
        now: () => clock,
      }),
    ).rejects.toThrow(WaitTimeoutError);
  });
  it("a terminal failure stops the wait", async () => {
    await expect(
      pollUntil({
        what: "audit",
        policy,
        read: async () => "rejected",
        classify: () => ({ failed: "rejected" }),
      }),
    ).rejects.toThrow(/audit failed: rejected/);
  });
});
