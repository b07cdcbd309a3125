import { createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ForgeHttpError, forgeFetch } from "../../src/forge/http.js";

// FORGE_TIMEOUT_MS bounds each forge call: the wait for the answer's headers (undici's
// headersTimeout) and the reading of its body (one sweep over the bodies being read), without a
// timer per call. A forge that answers on a raw socket, so each row decides when each byte comes.

type Answer = (socket: Socket) => void;
const HEAD = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 64\r\n\r\n";
const BODY = JSON.stringify({ text: "x".repeat(64 - 11) });

/** Writes `chunks` one at a time, `everyMs` apart, while the socket is open. */
function trickle(socket: Socket, chunks: string[], everyMs: number): void {
  const next = () => {
    const chunk = chunks.shift();
    if (chunk === undefined || socket.destroyed) return;
    socket.write(chunk);
    setTimeout(next, everyMs);
  };
  next();
}

const rows: Array<{ name: string; answer: Answer; how: "text" | "bytes" | "head"; ok: boolean }> = [
  { name: "headers that never come", answer: () => {}, how: "text", ok: false },
  {
    name: "a body that trickles past the deadline",
    answer: (s) => trickle(s, [HEAD, ...BODY.split("")], 20),
    how: "text",
    ok: false,
  },
  {
    name: "the same body read as bytes (maxBytes)",
    answer: (s) => trickle(s, [HEAD, ...BODY.split("")], 20),
    how: "bytes",
    ok: false,
  },
  {
    name: "the same body read as a download's first bytes (headBytes)",
    answer: (s) => trickle(s, [HEAD, ...BODY.split("")], 20),
    how: "head",
    ok: false,
  },
  {
    name: "a body that trickles but ends in time",
    answer: (s) => trickle(s, [HEAD, BODY.slice(0, 20), BODY.slice(20, 40), BODY.slice(40)], 20),
    how: "text",
    ok: true,
  },
];

describe("forgeFetch's deadline (FORGE_TIMEOUT_MS)", () => {
  const TIMEOUT_MS = 300;
  let server: Server;
  let base: string;
  const answers = new Map<string, Answer>();
  const sockets = new Set<Socket>();
  beforeAll(async () => {
    server = createServer((socket) => {
      sockets.add(socket);
      socket.on("error", () => {});
      socket.once("data", (d) => {
        const path = d.toString().split(" ")[1] ?? "";
        answers.get(decodeURIComponent(path.slice(1)))?.(socket);
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const address = server.address() as { port: number };
    base = `http://127.0.0.1:${address.port}`;
  });
  afterAll(async () => {
    // the forge client keeps its connections alive: close them, or close() waits for them
    for (const s of sockets) s.destroy();
    await new Promise((r) => server.close(r));
  });

  it.concurrent.each(rows)("$name", async ({ name, answer, how, ok }) => {
    answers.set(name, answer);
    const started = performance.now();
    const call = forgeFetch(`${base}/${encodeURIComponent(name)}`, {
      timeoutMs: TIMEOUT_MS,
      ...(how === "bytes" ? { maxBytes: 1024 } : how === "head" ? { headBytes: 1024 } : {}),
    });
    if (ok) {
      const r = await call;
      expect(r.status).toBe(200);
      expect(r.body).toEqual(JSON.parse(BODY));
      return;
    }
    const err = await call.then(
      () => undefined,
      (e: unknown) => e,
    );
    const took = performance.now() - started;
    expect(err).toBeInstanceOf(ForgeHttpError);
    expect((err as Error).message).toBe(`forge unreachable: timed out after ${TIMEOUT_MS} ms`);
    // cut at the deadline, not at the end of the body (64 bytes 20 ms apart: 1.3 s)
    expect(took).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    expect(took).toBeLessThan(TIMEOUT_MS + 700);
  });
});
