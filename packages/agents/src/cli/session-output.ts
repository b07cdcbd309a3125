// How session events are printed: one JSON object per line with --json, else a readable transcript
// (reply text as it streams in, tool calls and results, thinking, status, usage, errors). Every
// line goes through the project's secret redaction first.

import type { SessionEvent, SessionInfo } from "../index.js";
import { redactor } from "../index.js";

export interface EventPrinterOptions {
  json: boolean;
  secrets: string[];
  write(text: string): void;
  /** Show the user's own messages (the `events` listing does; chat and send do not echo them). */
  echoUser?: boolean;
}

export function eventPrinter(o: EventPrinterOptions): { print(e: SessionEvent): void; end(): void } {
  const redact = redactor(o.secrets);
  let midLine = false;
  const line = (text: string) => {
    o.write(redact(`${midLine ? "\n" : ""}${text}\n`));
    midLine = false;
  };
  return {
    print(e) {
      if (o.json) {
        o.write(`${redact(JSON.stringify(e))}\n`);
        return;
      }
      switch (e.type) {
        case "user_message":
          if (o.echoUser) line(`> ${e.text ?? ""}`);
          return;
        case "text_delta":
          o.write(redact(e.text ?? ""));
          midLine = !(e.text ?? "").endsWith("\n");
          return;
        case "text":
          if (!e.streamed) line(e.text ?? "");
          else if (midLine) {
            o.write("\n");
            midLine = false;
          }
          return;
        case "thinking":
          line(`(thinking)${e.text ? ` ${e.text}` : ""}`);
          return;
        case "tool_call":
          line(`[tool] ${e.tool?.name ?? "?"} ${JSON.stringify(e.tool?.input ?? {})}`);
          return;
        case "tool_result":
          line(`[tool ${e.tool?.is_error ? "error" : "result"}] ${e.tool?.output ?? ""}`);
          return;
        case "status":
          line(
            e.status === "requires_action"
              ? `[waiting for confirmation of ${(e.awaiting ?? []).join(", ")}]`
              : `[${e.status ?? "status"}${e.stop_reason && e.stop_reason !== "end_turn" ? `: ${e.stop_reason}` : ""}]`,
          );
          return;
        case "usage":
          line(`[usage] ${e.usage?.input_tokens ?? "?"} in, ${e.usage?.output_tokens ?? "?"} out`);
          return;
        case "error":
          line(`[error] ${e.error?.message ?? ""}`);
          return;
        default:
          return;
      }
    },
    end() {
      if (midLine) o.write("\n");
      midLine = false;
    },
  };
}

/** A session for people: one line per field. */
export function sessionLines(s: SessionInfo): string[] {
  return [
    `session ${s.id}`,
    `  agent:    ${s.agent}`,
    `  provider: ${s.provider}`,
    ...(s.status ? [`  status:   ${s.status}`] : []),
    ...(s.title ? [`  title:    ${s.title}`] : []),
    ...(s.created_at ? [`  created:  ${s.created_at}`] : []),
  ];
}
