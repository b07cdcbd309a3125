// `agents chat` on a real terminal: Debian's `script` runs the built CLI in a pseudo-terminal, so
// readline sees a TTY, replies stream in, and Ctrl-C (0x03 typed on the terminal) stops the
// turn, not the program; Ctrl-D at the prompt ends it with exit 0.
import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyAll, type SessionWorld, sessionWorld, setChunkMs } from "../engine/sessions-project.js";
import { CLI } from "./cli.js";

let world: SessionWorld;

beforeAll(async () => {
  world = await sessionWorld(undefined, "agents-chat-tty-");
  await applyAll(world);
}, 60_000);
afterAll(() => world?.close());

function onTerminal(args: string[]) {
  const command = [process.execPath, CLI, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
  const child = spawn("script", ["-qfec", command, "/dev/null"], {
    cwd: world.dir,
    env: { ...process.env, AGENTS_DEBUG: "", NO_COLOR: "1", TERM: "dumb" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let screen = "";
  const waiters: Array<{ re: RegExp; from: number; resolve: () => void }> = [];
  child.stdout.on("data", (d) => {
    screen += d;
    for (const w of [...waiters])
      if (w.re.test(screen.slice(w.from))) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  exited.finally(() => clearTimeout(timer));
  return {
    /** Resolves once `re` appears in what was printed after the current point. */
    waitFor(re: RegExp, from = screen.length) {
      return new Promise<void>((resolve) => {
        if (re.test(screen.slice(from))) resolve();
        else waiters.push({ re, from, resolve });
      });
    },
    mark: () => screen.length,
    type: (text: string) => child.stdin.write(text),
    screen: () => screen,
    exited,
  };
}

describe("agents chat on a terminal", () => {
  it("streams the reply; Ctrl-C stops the turn and the prompt comes back; Ctrl-D ends it", async () => {
    setChunkMs(world, 40);
    const term = onTerminal(["chat", "talk-c"]);
    await term.waitFor(/you> /);
    let from = term.mark();
    term.type("one two three four five six seven eight nine ten eleven twelve\r");
    // The first words are on screen while the rest is still being written: stop the turn there.
    await term.waitFor(/received: one two/, from);
    term.type("\x03");
    await term.waitFor(/\(interrupted\)[\s\S]*you> /, from);
    // (the terminal echoes what was typed; the reply itself never got to its last word)
    expect(term.screen().slice(from)).not.toMatch(
      /received: one two three four five six seven eight nine ten eleven twelve/,
    );
    from = term.mark();
    setChunkMs(world, 1);
    term.type("hello again\r");
    await term.waitFor(/received: hello again[\s\S]*\[idle\][\s\S]*you> /, from);
    term.type("\x04");
    expect(await term.exited).toBe(0);
  }, 30_000);
});
