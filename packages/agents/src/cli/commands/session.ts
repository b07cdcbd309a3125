import type { Command } from "commander";
import {
  Conversation,
  createSession,
  deleteSession,
  getSession,
  listSessions,
  loadProject,
  openSession,
  redact,
  sendMessage,
  startSession,
} from "../../index.js";
import { engineOptions, noticeToStderr, redactingErrors } from "../engine-output.js";
import { CliError } from "../errors.js";
import { eventPrinter, sessionLines } from "../session-output.js";
import {
  confirmer,
  printSessionEvents,
  readStdin,
  reconnectNotice,
  stdoutPace,
  withInterrupt,
} from "./session-io.js";

interface StartOptions {
  file: string;
  message?: string;
  title?: string;
  json?: boolean;
}

export function register(program: Command): void {
  const session = program
    .command("session")
    .description("talk to applied agents: create, send, events, list, get, delete sessions");
  session
    .command("start <AGENT>")
    .description(
      'start one session of an applied provider_b Managed agent (AGENT: its name, or an address like provider_b.agents["writer"])',
    )
    .option("-f, --file <FILE>", "configuration file", "agents.yaml")
    .option("-m, --message <TEXT>", "first user message, sent once the session exists")
    .option("--title <TEXT>", "session title")
    .option("--json", "print the session as one JSON document")
    .action(async (target: string, options: StartOptions) => {
      const project = await loadProject({ file: options.file });
      const started = await redactingErrors(project.secrets, () =>
        startSession(
          { ...engineOptions(project, "agents session start"), onNotice: noticeToStderr },
          target,
          {
            ...(options.message !== undefined ? { message: options.message } : {}),
            ...(options.title !== undefined ? { title: options.title } : {}),
          },
        ),
      );
      if (options.json) {
        process.stdout.write(`${JSON.stringify(started, null, 2)}\n`);
        return;
      }
      const lines = [`Started a session of ${started.address}.`, `  session: ${started.session_id}`];
      if (started.event_id) lines.push(`  message: ${started.event_id}`);
      process.stdout.write(`${lines.join("\n")}\n`);
    });
  registerRuntime(session);
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

function envPairs(pairs: string[] | undefined): Record<string, string> | undefined {
  if (!pairs?.length) return undefined;
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new CliError(`--env ${pair.split("=")[0]}: expected KEY=VALUE`);
    out[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return out;
}

function resourceObjects(values: string[] | undefined): Record<string, unknown>[] | undefined {
  if (!values?.length) return undefined;
  return values.map((v) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(v);
    } catch {
      throw new CliError(
        `--resource: expected a JSON object in the agents.yaml resources form, got ${v.slice(0, 40)}`,
      );
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
      throw new CliError("--resource: expected a JSON object in the agents.yaml resources form");
    return parsed as Record<string, unknown>;
  });
}

const out = (text: string) => process.stdout.write(text);

/** `session create|send|events|list|get|delete` (docs/cli.md §Sessions). */
export function registerRuntime(session: Command): void {
  session
    .command("create <AGENT>")
    .description("create a session of an applied agent (AGENT: its name or address)")
    .option("-f, --file <FILE>", "configuration file", "agents.yaml")
    .option("--identity <NAME>", "the identity a provider_b Forward session is for")
    .option(
      "--env <KEY=VALUE>",
      "an environment variable on top of the declared ones (provider_b; repeatable)",
      collect,
    )
    .option(
      "--resource <JSON>",
      `a session resource in the agents.yaml form, e.g. '{"type":"memory_store","memory_store":"notes"}' (file: provider_a, provider_b managed, provider_c, provider_d; memory_store: provider_b managed, provider_c, provider_d; git_repository: provider_b managed, provider_c; repeatable)`,
      collect,
    )
    .option("--title <TEXT>", "session title")
    .option("--json", "print the session as one JSON object")
    .action(
      async (
        target: string,
        o: {
          file: string;
          identity?: string;
          env?: string[];
          resource?: string[];
          title?: string;
          json?: boolean;
        },
      ) => {
        const project = await loadProject({ file: o.file });
        const env = envPairs(o.env);
        const resources = resourceObjects(o.resource);
        // A repository token given on the command line is a secret like the declared ones.
        const secrets = [
          ...project.secrets,
          ...(resources ?? []).flatMap((r) =>
            typeof r.authorization_token === "string" && r.authorization_token !== ""
              ? [r.authorization_token]
              : [],
          ),
        ];
        const created = await redactingErrors(secrets, () =>
          createSession(engineOptions(project, "agents session create", secrets), target, {
            ...(o.identity !== undefined ? { identity: o.identity } : {}),
            ...(env ? { env } : {}),
            ...(resources ? { resources } : {}),
            ...(o.title !== undefined ? { title: o.title } : {}),
          }),
        );
        out(
          o.json ? `${redactJson(created, secrets)}\n` : `${redactLines(sessionLines(created), secrets)}\n`,
        );
      },
    );

  session
    .command("send <SESSION> [MESSAGE]")
    .description("send a message (MESSAGE, or stdin without it) and print the reply as it streams in")
    .option("-f, --file <FILE>", "configuration file", "agents.yaml")
    .option("--json", "print the turn's events, one JSON object per line")
    .option("--no-wait", "only send; print the id of the message's event")
    .option("--allow-tools", "allow the tool calls the agent's ask permission holds (default: deny them)")
    .action(
      async (
        id: string,
        message: string | undefined,
        o: { file: string; json?: boolean; wait: boolean; allowTools?: boolean },
      ) => {
        const project = await loadProject({ file: o.file });
        const text = message ?? (await readStdin());
        if (!text.trim()) throw new CliError("nothing to send: give MESSAGE or pipe it on stdin");
        await redactingErrors(project.secrets, async () => {
          const open = await openSession(engineOptions(project, "agents session send"), id);
          if (!o.wait) {
            const eventId = await sendMessage(open, text);
            out(
              o.json
                ? `${JSON.stringify({ id: eventId ?? null, session_id: open.info.id })}\n`
                : `sent ${eventId ?? "(no event id reported)"}\n`,
            );
            return;
          }
          const printer = eventPrinter({ json: Boolean(o.json), secrets: project.secrets, write: out });
          const conversation = new Conversation(open);
          await withInterrupt(
            (signal) =>
              conversation.turn(text, {
                onEvent: printer.print,
                onReconnect: reconnectNotice,
                pace: stdoutPace,
                signal,
                confirm: confirmer({ allow: Boolean(o.allowTools), interactive: false }),
              }),
            () => conversation.interrupt(),
          );
          printer.end();
        });
      },
    );

  session
    .command("events <SESSION>")
    .description("print the session's events; --follow keeps printing new ones until Ctrl-C")
    .option("-f, --file <FILE>", "configuration file", "agents.yaml")
    .option("--follow", "keep the stream open and print events as they come")
    .option("--json", "one JSON object per event per line")
    .action(async (id: string, o: { file: string; follow?: boolean; json?: boolean }) => {
      const project = await loadProject({ file: o.file });
      const printer = eventPrinter({
        json: Boolean(o.json),
        secrets: project.secrets,
        write: out,
        echoUser: true,
      });
      await redactingErrors(project.secrets, async () => {
        const open = await openSession(engineOptions(project, "agents session events"), id);
        await printSessionEvents(open, printer.print, o.follow ? { follow: true } : {});
      });
      printer.end();
    });

  session
    .command("list")
    .description("list the sessions of this project's applied agents")
    .option("-f, --file <FILE>", "configuration file", "agents.yaml")
    .option("--agent <AGENT>", "only this agent's sessions")
    .option("--json", "one JSON object per session per line")
    .action(async (o: { file: string; agent?: string; json?: boolean }) => {
      const project = await loadProject({ file: o.file });
      const sessions = await redactingErrors(project.secrets, () =>
        listSessions(engineOptions(project, "agents session list"), o.agent ? { agent: o.agent } : {}),
      );
      if (o.json) {
        for (const s of sessions) out(`${redactJson(s, project.secrets)}\n`);
        return;
      }
      if (sessions.length === 0) {
        out("No sessions.\n");
        return;
      }
      for (const s of sessions)
        out(
          redactLines(
            [`${s.id}  ${s.status ?? "-"}  ${s.agent}${s.title ? `  ${s.title}` : ""}`],
            project.secrets,
          ) + "\n",
        );
    });

  session
    .command("get <SESSION>")
    .description("show one session")
    .option("-f, --file <FILE>", "configuration file", "agents.yaml")
    .option("--json", "print the session as one JSON object")
    .action(async (id: string, o: { file: string; json?: boolean }) => {
      const project = await loadProject({ file: o.file });
      const s = await redactingErrors(project.secrets, () =>
        getSession(engineOptions(project, "agents session get"), id),
      );
      out(
        o.json ? `${redactJson(s, project.secrets)}\n` : `${redactLines(sessionLines(s), project.secrets)}\n`,
      );
    });

  session
    .command("delete <SESSION>")
    .description("delete a session (provider_b Forward sessions are archived)")
    .option("-f, --file <FILE>", "configuration file", "agents.yaml")
    .option("--json", "print the deleted session as one JSON object")
    .action(async (id: string, o: { file: string; json?: boolean }) => {
      const project = await loadProject({ file: o.file });
      const s = await redactingErrors(project.secrets, () =>
        deleteSession(engineOptions(project, "agents session delete"), id),
      );
      out(
        o.json
          ? `${redactJson({ ...s, deleted: true }, project.secrets)}\n`
          : `Deleted session ${s.id} of ${s.agent}.\n`,
      );
    });
}

function redactJson(value: unknown, secrets: string[]): string {
  return redactLines([JSON.stringify(value)], secrets);
}

function redactLines(lines: string[], secrets: string[]): string {
  return redact(lines.join("\n"), secrets);
}
