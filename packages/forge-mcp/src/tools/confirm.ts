import { createHash, randomUUID } from "node:crypto";
import { LRUCache } from "lru-cache";
import {
  type CallContext,
  declaresFormElicitation,
  type ElicitAnswer as ElicitResult,
  InputRequired,
  type Peer,
} from "../mcp/catalogue.js";

/**
 * Confirmation of destructive tools through MCP elicitation (docs/forge-mcp.md "Confirming
 * destructive tools"): before a tool with destructiveHint calls the forge, the person - not the
 * model - answers a yes/no form naming the tool and its target. FORGE_MCP_CONFIRM_DESTRUCTIVE:
 * `elicit` asks clients that declared the `elicitation` capability and runs the tool for the others
 * (the behaviour before), `refuse` asks the same clients and refuses the tool for the others,
 * `off` never asks.
 */
export type ConfirmMode = "elicit" | "refuse" | "off";

/** What a tool call's context carries that confirmation reads. */
export type ConfirmExtra = Pick<CallContext, "authInfo" | "requestId" | "signal">;

/** How one kind of server asks its client: over a stdio session, or over stateless HTTP. */
export interface Asker {
  /** Whether this request's client declared the elicitation capability (form mode). */
  supports(peer: Peer, extra: ConfirmExtra): boolean;
  ask(peer: Peer, extra: ConfirmExtra, params: ElicitParams): Promise<ElicitResult>;
}

export interface ElicitParams {
  mode: "form";
  message: string;
  requestedSchema: {
    type: "object";
    properties: { confirm: { type: "boolean"; title: string; description: string } };
    required: ["confirm"];
  };
}

/** The yes/no form: it names the tool and every argument (the target), bounded in length. */
export function confirmationForm(toolName: string, args: Record<string, unknown>): ElicitParams {
  const target = Object.entries(args)
    .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(", ");
  const shown = target.length > 500 ? `${target.slice(0, 500)}…` : target;
  return {
    mode: "form",
    message: `Run ${toolName} (${shown || "no arguments"})? It deletes or changes something that cannot be undone.`,
    requestedSchema: {
      type: "object",
      properties: {
        confirm: {
          type: "boolean",
          title: `Run ${toolName}`,
          description: `Yes: ${toolName} runs on ${shown}`,
        },
      },
      required: ["confirm"],
    },
  };
}

/**
 * Asks before a destructive tool runs. Answers undefined when the tool may run, or the text of the
 * tool error to answer instead (no forge call).
 */
export async function confirmDestructive(
  mode: ConfirmMode,
  asker: Asker,
  extra: ConfirmExtra & { peer: Peer },
  toolName: string,
  args: Record<string, unknown>,
): Promise<string | undefined> {
  if (mode === "off") return undefined;
  // MCP 2026-07-28: the request declares its capabilities and carries the answers (the peer asks
  // with an input_required result), whatever this server's 2025 way of asking is
  if (extra.peer.inline) asker = sessionAsker;
  if (!asker.supports(extra.peer, extra))
    return mode === "refuse"
      ? `${toolName} was not run: it needs the person's confirmation and this client cannot ask (no elicitation capability)`
      : undefined;
  let answer: ElicitResult;
  try {
    answer = await asker.ask(extra.peer, extra, confirmationForm(toolName, args));
  } catch (err) {
    if (err instanceof InputRequired) throw err;
    return `${toolName} was not run: the confirmation was not answered`;
  }
  if (answer.action === "accept" && answer.content?.confirm === true) return undefined;
  return `${toolName} was not run: the person did not confirm it (${answer.action === "accept" ? "answered no" : answer.action})`;
}

/** A stdio session: the server knows its one client's capabilities and can send it requests. */
export const sessionAsker: Asker = {
  supports: (peer) => declaresFormElicitation(peer.clientCapabilities()),
  ask: (peer, _extra, params) => peer.elicit({ ...params }),
};

const WAIT_MS = 5 * 60_000;

/**
 * Stateless Streamable HTTP: every POST gets a fresh transport, so the capabilities a client
 * declared at `initialize` are remembered by the hash of its bearer token, and the client's answer
 * to `elicitation/create` (a POST of its own) is handed to the waiting tool call by the request id
 * we chose, only when it comes with the same token. Both live in this process: a client whose
 * initialize or answer reached another replica is treated as unable to ask / not answering.
 */
export class HttpAsker implements Asker {
  private readonly capable = new LRUCache<string, true>({ max: 10_000, ttl: 24 * 3600_000 });
  private readonly pending = new Map<string, { key: string; done: (r: ElicitResult | Error) => void }>();

  constructor(private readonly waitMs = WAIT_MS) {}

  private static key(token: string | undefined): string {
    return createHash("sha256")
      .update(token ?? "")
      .digest("base64url");
  }

  /** Called for every POST body: remembers what an `initialize` declared. */
  noteInitialize(body: unknown, token: string | undefined): void {
    for (const m of Array.isArray(body) ? body : [body]) {
      const msg = m as { method?: unknown; params?: { capabilities?: unknown } } | null;
      if (msg?.method !== "initialize") continue;
      const key = HttpAsker.key(token);
      if (declaresFormElicitation(msg.params?.capabilities)) this.capable.set(key, true);
      else this.capable.delete(key);
    }
  }

  supports(_peer: Peer, extra: ConfirmExtra): boolean {
    return this.capable.has(HttpAsker.key(extra.authInfo?.token));
  }

  /** Whether answering this POST needs an event stream (a confirmation may be sent on it). */
  mayAsk(token: string | undefined): boolean {
    // no client has declared it can answer: no token's hash to compute (the common case, per call)
    if (this.capable.size === 0) return false;
    return this.capable.has(HttpAsker.key(token));
  }

  ask(peer: Peer, extra: ConfirmExtra, params: ElicitParams): Promise<ElicitResult> {
    const id = `confirm-${randomUUID()}`;
    const key = HttpAsker.key(extra.authInfo?.token);
    return new Promise<ElicitResult>((resolve, reject) => {
      const timer = setTimeout(() => finish(new Error("timed out")), this.waitMs);
      timer.unref();
      const finish = (r: ElicitResult | Error) => {
        clearTimeout(timer);
        this.pending.delete(id);
        if (r instanceof Error) reject(r);
        else resolve(r);
      };
      this.pending.set(id, { key, done: finish });
      // the tool call's own POST ended (the client went away): nobody will answer
      extra.signal.addEventListener("abort", () => finish(new Error("aborted")), { once: true });
      peer
        .send({ jsonrpc: "2.0", id, method: "elicitation/create", params: { ...params } }, extra.requestId)
        .catch((err: Error) => finish(err));
    });
  }

  /**
   * A POST whose body answers our `elicitation/create` requests: hands each answer to its waiting
   * tool call. True when the whole body was such answers (the caller then replies 202).
   */
  deliver(body: unknown, token: string | undefined): boolean {
    // nothing is waiting for an answer: no token's hash to compute (the common case, per call)
    if (this.pending.size === 0) return false;
    const messages = Array.isArray(body) ? body : [body];
    const key = HttpAsker.key(token);
    const ours = messages.filter((m) => {
      const id = (m as { id?: unknown } | null)?.id;
      return typeof id === "string" && this.pending.get(id)?.key === key && !("method" in (m as object));
    }) as Array<{ id: string; result?: unknown; error?: unknown }>;
    if (ours.length === 0 || ours.length !== messages.length) return false;
    for (const m of ours) {
      const p = this.pending.get(m.id)!;
      const r = m.result as ElicitResult | undefined;
      p.done(r && typeof r.action === "string" ? r : new Error("elicitation failed"));
    }
    return true;
  }
}
