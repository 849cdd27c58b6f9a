/**
 * Icons in the chat webview: VS Code's codicons (the font and its stylesheet are copied from
 * @vscode/codicons into dist/codicons at build time and loaded through the webview's URIs). An icon
 * is decoration only (`aria-hidden`): its button carries the name (text, or `aria-label` and `title`).
 */

/** `<span class="codicon codicon-NAME" aria-hidden="true">`. */
export function codicon(d: Document, name: string): HTMLElement {
  const s = d.createElement('span');
  s.className = `codicon codicon-${name}`;
  s.setAttribute('aria-hidden', 'true');
  return s;
}

/** Sets a button's content to an icon and a text label (the label in its own span, to change it later). */
export function iconLabel(b: HTMLElement, icon: string, label: string): void {
  const d = b.ownerDocument;
  const text = d.createElement('span');
  text.className = 'label';
  text.textContent = label;
  b.replaceChildren(codicon(d, icon), text);
}
