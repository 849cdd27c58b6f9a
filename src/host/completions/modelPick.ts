/**
 * Choose Completion Model's list (issue 25): the token's models that can write text (image and video
 * models left out), fill-in-the-middle ones first and marked, each with its published price, the
 * current one checked. Plain Node: the glue shows the entries in a quick pick.
 */
import { t } from '../../gateway/l10n';
import type { CompletionMode } from '../../gateway/completions/types';

export interface PickModel {
  id: string;
  /** new-api's capabilities, when the gateway tells them */
  capabilities?: readonly string[] | undefined;
}

export interface ModelPickEntry {
  id: string;
  /** "$(check) deepseek-chat" for the current one */
  label: string;
  /** price, "fill-in-the-middle" or "chat request" */
  description: string;
  mode: CompletionMode;
}

const TEXT = new Set(['chat', 'native', 'responses']);

/** Whether a model can answer a completion: it writes text, or the gateway did not say what it does. */
function writesText(m: PickModel): boolean {
  return !m.capabilities?.length || m.capabilities.some((c) => TEXT.has(c));
}

export function completionModelEntries(
  models: readonly PickModel[],
  f: {
    /** how the model is asked (the core's rule: FIM-capable family or `overrides[id].fim`) */
    mode: (id: string) => CompletionMode;
    /** "$0.14 in / $0.28 out per 1M tokens", when published */
    price: (id: string) => string | undefined;
    current: string | undefined;
  },
): ModelPickEntry[] {
  const entries = models.filter(writesText).map((m): ModelPickEntry => {
    const mode = f.mode(m.id);
    const how = mode === 'fim' ? t('fill-in-the-middle') : t('chat request');
    const price = f.price(m.id);
    return {
      id: m.id,
      label: m.id === f.current ? `$(check) ${m.id}` : m.id,
      description: price ? t('{0} · {1}', how, price) : how,
      mode,
    };
  });
  const rank = (e: ModelPickEntry) => (e.mode === 'fim' ? 0 : 1);
  return entries.sort((a, b) => rank(a) - rank(b) || a.id.localeCompare(b.id));
}
