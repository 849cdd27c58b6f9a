/**
 * How our models present themselves in VS Code's model picker (1.120+ rules,
 * shared/reference/vscode-chat-settings.md §1): every model is user-selectable (1.120 hid third-party
 * models without `isUserSelectable: true`, vscode#316687), and the picker's `category` is a string —
 * the gateway's name — only when models of several gateways are listed. With one gateway there is no
 * category: PR #316280 removed picker categories, and the proposal's `{label, order}` object crashed
 * the 1.126 picker (`a.charAt is not a function`, vscode#322293). Plain Node, no `vscode`.
 */

/** The picker fields of one model of a gateway, when `gatewayCount` gateways list models. */
export interface PickerFields {
  isUserSelectable: true;
  /** the gateway's name, a string (never an object); absent with one gateway */
  category?: string;
}

export function pickerFields(gatewayName: string, gatewayCount: number): PickerFields {
  return gatewayCount > 1 && gatewayName.trim()
    ? { isUserSelectable: true, category: gatewayName }
    : { isUserSelectable: true };
}
