import { relative } from "node:path";
import type { Diagnostic } from "./diagnostics.js";

/** Compiler-style text: location, severity, code, message, the source line with a caret, hint. */
export function formatDiagnostic(d: Diagnostic, lineText: string | undefined, cwd = process.cwd()): string {
  const file = displayPath(d.file, cwd);
  const lines = [`${file}:${d.line}:${d.col} ${d.severity} ${d.code} ${d.message}`];
  if (lineText !== undefined && lineText.trim().length > 0) {
    const gutter = String(d.line);
    const pad = " ".repeat(gutter.length);
    const caretIndent = lineText.slice(0, Math.max(0, d.col - 1)).replace(/[^\t]/g, " ");
    lines.push(`  ${gutter} | ${lineText}`, `  ${pad} | ${caretIndent}^`);
  }
  if (d.hint)
    lines.push(...d.hint.split("\n").map((line, i) => (i === 0 ? `hint: ${line}` : `      ${line}`)));
  return lines.join("\n");
}

export function summary(errors: number, warnings: number): string {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  return `${plural(errors, "error")}, ${plural(warnings, "warning")}`;
}

/** Relative to the current folder when the file is inside it, else absolute. */
export function displayPath(file: string, cwd = process.cwd()): string {
  const rel = relative(cwd, file);
  return rel && !rel.startsWith("..") ? rel : file;
}
