// The CLI's own program (src/cli/program.ts: the same commander tree, commands, output and exit
// codes as `agents`), run inside the test's process instead of as a new Node process. A spawned
// CLI costs a Node start and a bundle load, about half a second a step on the CI machine; tests
// whose point is what a command does, not how the binary starts, run here. What only a real
// process shows stays spawned through ./cli.ts: signals and kills, a terminal, stdin, the bundle
// and its code cache, two CLIs at once, AGENTS_DEBUG's stack traces.
//
// For the length of a run, the process is the CLI's: its arguments, working directory,
// environment (laid over the test's as ./cli.ts does), stdout/stderr (captured, not printed) and
// a stdin that is not a terminal. Runs are queued, so two never overlap, and everything is put
// back afterwards, the exit code included.
import { type Command, CommanderError } from "commander";
import { CliError } from "../../src/cli/errors.js";
import { buildProgram } from "../../src/cli/program.js";
import type { CliResult } from "./cli.js";

type Write = typeof process.stdout.write;

let queue: Promise<unknown> = Promise.resolve();

export function runCliHere(
  args: string[],
  // timeoutMs is ./cli.ts's kill timer; a run in this process is bounded by the test's timeout.
  // cleanEnv: the environment is PATH and `env` only, not laid over the test's.
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; cleanEnv?: boolean },
): Promise<CliResult> {
  const run = queue.then(() => runOnce(args, options));
  queue = run.catch(() => undefined);
  return run;
}

function capture(stream: NodeJS.WriteStream, into: string[]): () => void {
  const original = stream.write;
  stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    into.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
    const callback = rest.find((r) => typeof r === "function") as (() => void) | undefined;
    if (callback) queueMicrotask(callback);
    return true;
  }) as Write;
  return () => {
    stream.write = original;
  };
}

async function runOnce(
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; cleanEnv?: boolean },
): Promise<CliResult> {
  const saved = {
    env: process.env,
    cwd: process.cwd(),
    exitCode: process.exitCode,
    stdinTTY: process.stdin.isTTY,
    stdoutTTY: process.stdout.isTTY,
  };
  const stdout: string[] = [];
  const stderr: string[] = [];
  const base = options.cleanEnv ? { PATH: saved.env.PATH ?? "" } : saved.env;
  process.env = { ...base, AGENTS_DEBUG: "", NO_COLOR: "1", ...options.env };
  process.chdir(options.cwd);
  process.exitCode = undefined;
  // As spawned with stdio "ignore" and pipes: no terminal on either side.
  process.stdin.isTTY = false as true;
  process.stdout.isTTY = false as true;
  const restoreOut = capture(process.stdout, stdout);
  const restoreErr = capture(process.stderr, stderr);
  let code: number;
  try {
    // What src/cli/main.ts does, with commander told to throw where it would exit.
    try {
      const program = await buildProgram(["node", "agents", ...args]);
      const throwInsteadOfExit = (command: Command) => {
        command.exitOverride();
        for (const sub of command.commands) throwInsteadOfExit(sub);
      };
      throwInsteadOfExit(program);
      await program.parseAsync(["node", "agents", ...args]);
      code = typeof process.exitCode === "number" ? process.exitCode : 0;
    } catch (error) {
      if (error instanceof CommanderError) {
        code = error.exitCode;
      } else {
        process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
        code = error instanceof CliError ? error.exitCode : 1;
      }
    }
    // Output still buffered for the next turn of the loop (engine-output's lineBuffer) lands here.
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    restoreOut();
    restoreErr();
    process.env = saved.env;
    process.chdir(saved.cwd);
    process.exitCode = saved.exitCode;
    process.stdin.isTTY = saved.stdinTTY;
    process.stdout.isTTY = saved.stdoutTTY;
  }
  return { code, stdout: stdout.join(""), stderr: stderr.join("") };
}
