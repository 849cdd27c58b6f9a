/**
 * Where an inline suggestion goes in the editor (issue 25; reference vscode-chat-settings §3): the
 * item's range stays on the cursor's line and replaces `[line start, cursor]` with the typed text
 * plus the suggestion, so VS Code keeps showing it while the user types into it or deletes back
 * (a zero-width insert at the cursor would be dropped at the first backspace); with the suggest
 * widget open, the item takes the widget's range and its text extends the widget's item (the engine
 * gives it so: the selected item's text followed by the completion), or VS Code does not show it.
 * Plain Node: character positions on one line.
 */

export interface LineItem {
  insertText: string;
  /** on the cursor's line */
  startCharacter: number;
  endCharacter: number;
}

/** The suggest widget's range on the cursor's line, which the suggestion replaces. */
export interface ReplacedRange {
  startCharacter: number;
  endCharacter: number;
}

/**
 * The item for `suggestion`: the text to insert at the cursor, or, with `replaced` (the suggest
 * widget's selected item), the text that replaces that range. `lineText` is the cursor's line,
 * `cursor` the cursor's character on it. Undefined when there is nothing to show (an empty
 * suggestion, or a range that does not reach the cursor).
 */
export function lineItem(
  lineText: string,
  cursor: number,
  suggestion: string,
  replaced?: ReplacedRange,
): LineItem | undefined {
  if (!suggestion) return undefined;
  if (replaced) {
    if (replaced.startCharacter > cursor || replaced.endCharacter < replaced.startCharacter) return undefined;
    return { insertText: suggestion, startCharacter: replaced.startCharacter, endCharacter: replaced.endCharacter };
  }
  const at = Math.min(Math.max(cursor, 0), lineText.length);
  return { insertText: lineText.slice(0, at) + suggestion, startCharacter: 0, endCharacter: at };
}
