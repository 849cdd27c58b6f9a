/**
 * Where an inline suggestion goes in the editor (issue 25; reference vscode-chat-settings §3): the
 * item's range stays on the cursor's line and replaces `[line start, cursor]` with the typed text
 * plus the suggestion, so VS Code keeps showing it while the user types into it or deletes back
 * (a zero-width insert at the cursor would be dropped at the first backspace); with the suggest
 * widget open, the item takes the widget's range and extends its text, or VS Code does not show it.
 * Plain Node: character positions on one line.
 */

export interface LineItem {
  insertText: string;
  /** on the cursor's line */
  startCharacter: number;
  endCharacter: number;
}

export interface SelectedInfo {
  /** the widget's range on the cursor's line */
  startCharacter: number;
  endCharacter: number;
  text: string;
}

/**
 * The item for `suggestion` (text to insert at the cursor; after the widget's selected text when one
 * is selected). `lineText` is the cursor's line, `cursor` the cursor's character on it. Undefined when
 * there is nothing to show (an empty suggestion, or a widget range that is not on the cursor's line).
 */
export function lineItem(
  lineText: string,
  cursor: number,
  suggestion: string,
  selected?: SelectedInfo,
): LineItem | undefined {
  if (!suggestion) return undefined;
  if (selected) {
    if (selected.startCharacter > cursor || selected.endCharacter < selected.startCharacter) return undefined;
    return {
      insertText: selected.text + suggestion,
      startCharacter: selected.startCharacter,
      endCharacter: selected.endCharacter,
    };
  }
  const at = Math.min(Math.max(cursor, 0), lineText.length);
  return { insertText: lineText.slice(0, at) + suggestion, startCharacter: 0, endCharacter: at };
}
