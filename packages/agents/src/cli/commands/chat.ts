import type { Command } from "commander";
import { Conversation, createSession, loadProject, openSession } from "../../index.js";
import { engineOptions, redactingErrors } from "../engine-output.js";
import { eventPrinter } from "../session-output.js";
import { confirmer, createInterface, reconnectNotice, stdoutPace } from "./session-io.js";

interface ChatOptions {
  file: string;
  session?: string;
  identity?: string;
  title?: string;
  json?: boolean;
  allowTools?: boolean;
}

/**
 * `agents chat AGENT` (docs/cli.md §Chat): on a terminal, a prompt whose replies stream in and
 * where Ctrl-C stops the turn, not the program (Ctrl-C at the prompt, or Ctrl-D, ends it); from a
 * pipe, one message per line, each reply printed, exit 0 at the end of the input.
 */
export function register(program: Command): void {
  program
    .command("chat <AGENT>")
    .description("talk to an applied agent: type, and see the reply stream in (Ctrl-C stops a turn)")
    .option("-f, --file <FILE>", "configuration file", "agents.yaml")
    .option("--session <ID>", "continue this session instead of creating one")
    .option("--identity <NAME>", "the identity a provider_b Forward session is for")
    .option("--title <TEXT>", "title of the new session")
    .option("--json", "print events as JSON, one per line")
    .option("--allow-tools", "allow the tool calls the agent's ask permission holds without asking")
    .action(async (target: string, o: ChatOptions) => {
      const project = await loadProject({ file: o.file });
      const options = engineOptions(project, "agents chat");
      const interactive = Boolean(process.stdin.isTTY && process.stdout.isTTY);
      await redactingErrors(project.secrets, async () => {
        const open = o.session
          ? await openSession(options, o.session)
          : await openSession(
              options,
              (
                await createSession(options, target, {
                  ...(o.identity !== undefined ? { identity: o.identity } : {}),
                  ...(o.title !== undefined ? { title: o.title } : {}),
                })
              ).id,
            );
        const conversation = new Conversation(open);
        const write = (text: string) => process.stdout.write(text);
        const printer = eventPrinter({ json: Boolean(o.json), secrets: project.secrets, write });
        const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: interactive });
        const confirm = confirmer({ allow: Boolean(o.allowTools), interactive, rl });
        let turn: AbortController | undefined;
        let closed = false;
        rl.on("close", () => {
          closed = true;
        });
        // On a terminal readline owns Ctrl-C: during a turn it stops the turn, at the prompt it ends the chat.
        rl.on("SIGINT", () => {
          if (turn) {
            turn.abort();
            conversation.interrupt().catch(() => {});
          } else rl.close();
        });
        if (interactive)
          write(
            `Chatting with ${open.info.agent} in session ${open.info.id}. Ctrl-C stops a reply; Ctrl-D ends.\n`,
          );
        const run = async (text: string) => {
          turn = new AbortController();
          try {
            const finished = await conversation.turn(text, {
              onEvent: printer.print,
              onReconnect: reconnectNotice,
              pace: stdoutPace,
              signal: turn.signal,
              confirm,
            });
            printer.end();
            if (!finished) write("(interrupted)\n");
          } finally {
            turn = undefined;
          }
        };
        if (interactive) {
          while (!closed) {
            let line: string;
            try {
              line = await rl.question("you> ");
            } catch {
              break;
            }
            if (line.trim()) await run(line);
          }
        } else {
          for await (const line of rl) if (line.trim()) await run(line);
        }
        rl.close();
      });
    });
}
