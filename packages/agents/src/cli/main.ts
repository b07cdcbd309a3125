// The CLI's entry: scripts/bundle.mjs bundles it with a call to main() into dist/agents.cjs.
import { CliError } from "./errors.js";
import { buildProgram } from "./program.js";

/** 128 + SIGPIPE: what a shell shows for `git log | head` (git dies of the signal). */
export const CLOSED_PIPE_EXIT = 141;

/**
 * A reader that stops reading (`agents state list | head`) closes the pipe: the next write fails
 * with EPIPE, which Node raises as an uncaught error with a stack trace. Instead the CLI stops
 * quietly, as git does, with exit code 141. A command that stops gracefully on Ctrl-C (apply and
 * destroy record the steps in flight and release the lock; `session events` ends its stream) is
 * stopped that way, its output now going nowhere; any other command exits at once.
 */
function stopQuietlyOnClosedPipe(stream: NodeJS.WriteStream): void {
  let closed = false;
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE" && error.code !== "ERR_STREAM_DESTROYED") throw error;
    if (closed) return;
    closed = true;
    process.exitCode = CLOSED_PIPE_EXIT;
    if (process.listenerCount("SIGINT") > 0) process.emit("SIGINT");
    else process.exit(CLOSED_PIPE_EXIT);
  });
}

/** Runs the CLI on process.argv; a failure is one line on stderr and a non-zero exit code. */
export async function main(): Promise<void> {
  stopQuietlyOnClosedPipe(process.stdout);
  stopQuietlyOnClosedPipe(process.stderr);
  try {
    await (await buildProgram(process.argv)).parseAsync(process.argv);
  } catch (error) {
    if (process.env.AGENTS_DEBUG === "1" && error instanceof Error) {
      process.stderr.write(`${error.stack ?? error.message}\n`);
    } else {
      process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    }
    process.exitCode = error instanceof CliError ? error.exitCode : 1;
  }
}
