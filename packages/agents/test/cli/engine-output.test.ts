// The CLI's progress output: lines pushed in one turn of the event loop leave in one write, in
// order, and nothing is lost at a flush, a close or an exit.
import { afterEach, describe, expect, it } from "vitest";
import { lineBuffer } from "../../src/cli/engine-output.js";

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
const exitListeners = () => process.listeners("exit").length;

describe("lineBuffer", () => {
  const opened: Array<{ close(): void }> = [];
  afterEach(() => {
    for (const b of opened.splice(0)) b.close();
  });

  it("writes the lines of one turn together, in order, on the next turn", async () => {
    const writes: string[] = [];
    const out = lineBuffer((text) => writes.push(text));
    opened.push(out);
    out.push("a\n");
    out.push("b\n");
    expect(writes).toEqual([]);
    await nextTurn();
    expect(writes).toEqual(["a\nb\n"]);
    out.push("c\n");
    await nextTurn();
    expect(writes).toEqual(["a\nb\n", "c\n"]);
  });

  it("flush writes at once (before a question); close also stops listening for exit", async () => {
    const writes: string[] = [];
    const before = exitListeners();
    const out = lineBuffer((text) => writes.push(text));
    expect(exitListeners()).toBe(before + 1);
    out.push("plan\n");
    out.flush();
    expect(writes).toEqual(["plan\n"]);
    out.push("summary\n");
    out.close();
    expect(writes).toEqual(["plan\n", "summary\n"]);
    expect(exitListeners()).toBe(before);
    await nextTurn();
    expect(writes).toHaveLength(2);
  });

  it("writes what is left when the process exits before the next turn", () => {
    const writes: string[] = [];
    const out = lineBuffer((text) => writes.push(text));
    opened.push(out);
    out.push("last words\n");
    const listener = process.listeners("exit").at(-1) as () => void;
    listener();
    expect(writes).toEqual(["last words\n"]);
  });
});
