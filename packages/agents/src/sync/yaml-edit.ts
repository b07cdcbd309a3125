// Applies sync's edits to the parsed agents.yaml in place (the `yaml` Document API), so every
// node sync does not touch keeps its comments, key order, quoting and flow style.
import { type Document, isCollection, isMap, isNode, isScalar, type Node, parseDocument, visit } from "yaml";
import type { Edit, EditPath } from "./reconcile.js";

/** How the file is printed back: flow lists stay `[a, b]`, long strings are never refolded. */
const PRINT_OPTIONS = { flowCollectionPadding: false, lineWidth: 0 } as const;

export function parseForEdit(text: string): Document {
  const doc = parseDocument(text);
  keepKeyLineComments(doc, text);
  return doc;
}

/**
 * `name: # note` above a block map or list parses as a comment *before the value*, which the
 * printer puts on its own line under the key. Moving that first comment line to the key keeps
 * it where the author wrote it, for every block sync reprints (not only the edited ones).
 */
function keepKeyLineComments(doc: Document, text: string): void {
  visit(doc, {
    Pair(_, pair) {
      const value = pair.value;
      if (!isCollection(value) || !value.commentBefore || !isScalar(pair.key)) return;
      const keyEnd = pair.key.range?.[1];
      const valueStart = value.range?.[0];
      if (keyEnd === undefined || valueStart === undefined) return;
      const sameLine = text.slice(keyEnd, valueStart).split("\n")[0] ?? "";
      if (!sameLine.includes("#")) return;
      const [first, ...rest] = value.commentBefore.split("\n");
      pair.key.comment = first;
      value.commentBefore = rest.length > 0 ? rest.join("\n") : undefined;
    },
  });
}

export function printDocument(doc: Document): string {
  return doc.toString(PRINT_OPTIONS);
}

/** The declaration as written (no interpolation), as plain data. */
export function rawValue(doc: Document, path: EditPath): unknown {
  const node = doc.getIn(path, true);
  if (node === undefined) return undefined;
  return isNode(node) ? node.toJSON() : node;
}

export function applyEdits(doc: Document, edits: Edit[]): void {
  for (const edit of edits) {
    if (edit.op === "delete") {
      doc.deleteIn(edit.path);
      continue;
    }
    if (edit.op === "append") {
      doc.addIn(edit.path, doc.createNode(edit.value));
      continue;
    }
    ensureParentMaps(doc, edit.path);
    const previous = doc.getIn(edit.path, true) as Node | undefined;
    const next = doc.createNode(edit.value) as Node;
    if (isNode(previous)) {
      // The replaced node's own comments and flow style describe the place, not the old value.
      if (previous.commentBefore) next.commentBefore = previous.commentBefore;
      if (previous.comment) next.comment = previous.comment;
      if (isCollection(previous) && isCollection(next) && previous.flow) next.flow = true;
      if (isScalar(previous) && isScalar(next) && typeof next.value === typeof previous.value)
        next.type = previous.type;
    }
    doc.setIn(edit.path, next);
  }
}

/** `kind:` present but empty (`agents:` with nothing under it) parses as null; make it a map. */
function ensureParentMaps(doc: Document, path: EditPath): void {
  for (let depth = 1; depth < path.length; depth++) {
    const parentPath = path.slice(0, depth);
    const node = doc.getIn(parentPath, true);
    if (node === undefined || (isScalar(node) && (node.value === null || node.value === undefined)))
      doc.setIn(parentPath, doc.createNode({}));
    else if (!isMap(node) && !isCollection(node)) return;
  }
}
