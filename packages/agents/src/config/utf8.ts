import { readFileSync } from "node:fs";
import type { Diagnostic } from "./diagnostics.js";

const strict = new TextDecoder("utf-8", { fatal: true });

/**
 * Decode a file's bytes as UTF-8, refusing a byte sequence that is not UTF-8 (a lenient decoder
 * would put U+FFFD in its place and the file would validate with a changed value). A leading BOM
 * is dropped. The error names the line and column of the first bad byte.
 */
export function decodeUtf8(bytes: Uint8Array, file: string): { text: string } | { diagnostic: Diagnostic } {
  try {
    return { text: strict.decode(bytes) };
  } catch {
    const offset = Math.max(0, firstInvalidUtf8(bytes));
    const before = strict.decode(bytes.subarray(0, offset));
    const line = before.split("\n").length;
    const col = before.length - before.lastIndexOf("\n");
    const byte = bytes[offset]!.toString(16).toUpperCase().padStart(2, "0");
    return {
      diagnostic: {
        code: "AGENTS1000",
        severity: "error",
        message: `the file is not valid UTF-8: byte 0x${byte} cannot start or continue a character`,
        file,
        line,
        col,
        hint: 're-save the file as UTF-8 (an editor\'s "Save with encoding"; or `iconv -f latin1 -t utf-8`)',
      },
    };
  }
}

/** Byte offset of the first sequence that is not well-formed UTF-8, or -1 (RFC 3629 table 3-7). */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i]!;
    if (lead < 0x80) {
      i++;
      continue;
    }
    let length: number;
    let low = 0x80;
    let high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) length = 2;
    else if (lead >= 0xe0 && lead <= 0xef) {
      length = 3;
      if (lead === 0xe0) low = 0xa0;
      if (lead === 0xed) high = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      length = 4;
      if (lead === 0xf0) low = 0x90;
      if (lead === 0xf4) high = 0x8f;
    } else return i;
    if (i + length > bytes.length) return i;
    const second = bytes[i + 1]!;
    if (second < low || second > high) return i;
    for (let k = 2; k < length; k++) if ((bytes[i + k]! & 0xc0) !== 0x80) return i;
    i += length;
  }
  return -1;
}

/**
 * Reads a configuration file as UTF-8 text; a file that cannot be read is AGENTS1006 at 1:1 with
 * `hint` as its fix (`shown` is the path as the user wrote it), one that is not UTF-8 AGENTS1000.
 */
export function readTextFile(
  absolute: string,
  shown: string,
  hint: string,
): { text: string } | { diagnostic: Diagnostic } {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(absolute);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "file not found" : "cannot be read";
    return {
      diagnostic: {
        code: "AGENTS1006",
        severity: "error",
        message: `${shown}: ${reason}`,
        file: absolute,
        line: 1,
        col: 1,
        hint,
      },
    };
  }
  return decodeUtf8(bytes, absolute);
}
