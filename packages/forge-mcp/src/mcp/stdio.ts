import type { Readable, Writable } from "node:stream";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { CancelTable, cancelNotice } from "./cancels.js";
import type { Catalogue } from "./catalogue.js";
import { ListenBus } from "./listen.js";
import { classify, Rev2026, type StateSealer } from "./rev2026.js";
import { createMcpServer, unknownToolAnswer } from "./sdk-server.js";

/**
 * stdio: one McpServer for the catalogue, on this process's stdin and stdout, for one client. A
 * message of MCP 2026-07-28 (src/mcp/rev2026.ts) is answered by our own layer before the SDK's
 * server sees it; a 2025 one goes to the SDK's server, as before. A listen's notifications share
 * stdout, each stamped with its listen request's id. A call is cancelled with
 * notifications/cancelled (the only way on stdio): a 2025 call by the SDK's server, a 2026 one
 * here (its answer is then not written). `streams`: other than stdin and stdout (tests).
 */
export async function serveStdio(
  catalogue: Catalogue,
  sealer: StateSealer,
  streams?: { stdin: Readable; stdout: Writable },
): Promise<void> {
  const stdio = new StdioServerTransport(streams?.stdin, streams?.stdout);
  const modern = new Rev2026(catalogue, { name: "forge-mcp", version: "0.1.0" }, sealer);
  const listeners = new ListenBus();
  // the 2026 calls running, by id (one client: its ids are its own)
  const running = new CancelTable();
  const out = (m: unknown) => void stdio.send(m as JSONRPCMessage).catch(() => {});
  // what the SDK's server is connected to: stdio, with the 2026 messages taken out
  const front: Transport = {
    start: () => stdio.start(),
    send: (message) => stdio.send(message),
    close: () => stdio.close(),
  };
  stdio.onmessage = (message: JSONRPCMessage) => {
    const cancel = cancelNotice(message);
    // a cancel of a 2026 call stops it; any other goes on (the SDK's server has the 2025 calls)
    if (cancel && running.cancel(idKey(cancel.requestId))) return;
    const era = classify(message, undefined);
    if (era.era === "legacy") {
      const unknown = unknownToolAnswer(catalogue, message);
      return unknown ? out(unknown) : front.onmessage?.(message);
    }
    if (era.era === "refused") return out(era.answer);
    if (era.era === "modern-notification") return;
    const request = era.request;
    if (request.method === "subscriptions/listen") {
      const opened = listeners.open(request, undefined, out);
      if (typeof opened !== "function") out(opened);
      return;
    }
    const controller = new AbortController();
    const leave = running.add(idKey(request.id), () => controller.abort());
    void modern
      .answer(request, {
        caller: undefined,
        signal: controller.signal,
        listChanged: (c) => listeners.listChanged(c),
      })
      // a cancelled call is not answered; no scope gate over stdio (no sign-in), so never a step-up
      .then((answer) => {
        leave?.();
        if (!controller.signal.aborted && !("stepUp" in answer)) out(answer);
      });
  };
  stdio.onclose = () => front.onclose?.();
  stdio.onerror = (err) => front.onerror?.(err);
  await createMcpServer(catalogue).connect(front);
}

/** An id as the table keys it: 1 and "1" are two ids. */
const idKey = (id: string | number) => `${typeof id}:${id}`;
