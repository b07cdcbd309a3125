import type { Gitlab } from "@gitbeaker/rest";
import { expect } from "vitest";

// The shape of gitbeaker.test.ts's rows, shared by its row files (gitbeaker-a.ts, gitbeaker-b.ts):
// one forge endpoint, the gitbeaker calls that reach it, and the check of gitbeaker's answer.

export type Gl = InstanceType<typeof Gitlab>;
export type Ctx = Record<string, any>;
export interface Row {
  endpoint: string;
  run: (gl: Gl, c: Ctx) => Promise<unknown>;
  check: (out: any, c: Ctx) => void;
}

/** The default dataset's project most rows act on. */
export const W = "acme/widgets";
export const row = (endpoint: string, run: Row["run"], check: Row["check"]): Row => ({
  endpoint,
  run,
  check,
});
/** A list holding an object whose `key` is `value`. */
export const has = (key: string, value: unknown) => (out: any) =>
  expect(out).toEqual(expect.arrayContaining([expect.objectContaining({ [key]: value })]));
/** For a row whose call succeeding is the whole check. */
export const done = () => {};

/** A request the forge simulator logged. */
export interface Logged {
  method: string;
  path: string;
  status: number;
}

/**
 * Runs `call` against the forge simulator at `origin` with its request log cleared first: the
 * call's result and the forge requests it made (the simulator's own /_sim requests left out).
 */
export async function logged<T>(origin: string, call: () => Promise<T>): Promise<{ out: T; log: Logged[] }> {
  await fetch(`${origin}/_sim/log`, { method: "DELETE" });
  const out = await call();
  const { entries } = (await (await fetch(`${origin}/_sim/log`)).json()) as { entries: Logged[] };
  return { out, log: entries.filter((e) => !e.path.startsWith("/_sim")) };
}
