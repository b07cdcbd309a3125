import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { Catalogue } from "./catalogue.js";
import { ListenBus } from "./listen.js";
import { classify, Rev2026, type StateSealer } from "./rev2026.js";
import { createMcpServer, unknownToolAnswer } from "./sdk-server.js";

/**
 * stdio: one McpServer for the catalogue, on this process's stdin and stdout, for one client. A
 * message of MCP 2026-07-28 (src/mcp/rev2026.ts) is answered by our own layer before the SDK's
 * server sees it; a 2025 one goes to the SDK's server, as before. A listen's notifications share
 * stdout, each stamped with its listen request's id.
 */
export async function serveStdio(catalogue: Catalogue, sealer: StateSealer): Promise<void> {
  const stdio = new StdioServerTransport();
  const modern = new Rev2026(catalogue, { name: "forge-mcp", version: "0.1.0" }, sealer);
  const listeners = new ListenBus();
  const out = (m: unknown) => void stdio.send(m as JSONRPCMessage).catch(() => {});
  const idle = new AbortController().signal;
  // what the SDK's server is connected to: stdio, with the 2026 messages taken out
  const front: Transport = {
    start: () => stdio.start(),
    send: (message) => stdio.send(message),
    close: () => stdio.close(),
  };
  stdio.onmessage = (message: JSONRPCMessage) => {
    const era = classify(message, undefined);
    if (era.era === "legacy") {
      const unknown = unknownToolAnswer(catalogue, message);
      return unknown ? out(unknown) : front.onmessage?.(message);
    }
    if (era.era === "refused") return out(era.answer);
    if (era.era === "modern-notification") return;
    if (era.request.method === "subscriptions/listen") {
      const opened = listeners.open(era.request, undefined, out);
      if (typeof opened !== "function") out(opened);
      return;
    }
    void modern
      .answer(era.request, { caller: undefined, signal: idle, listChanged: (c) => listeners.listChanged(c) })
      // no scope gate over stdio (no sign-in), so never a step-up to answer
      .then((answer) => void ("stepUp" in answer || out(answer)));
  };
  stdio.onclose = () => front.onclose?.();
  stdio.onerror = (err) => front.onerror?.(err);
  await createMcpServer(catalogue).connect(front);
}
