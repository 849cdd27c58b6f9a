/**
 * What the language-model tools answer, as text a model reads well: the token's models per
 * capability, and the confirmations before a billed image call and before a diagnosis (which sends the
 * token to the gateway and makes small billed calls). Plain Node, no `vscode`.
 */
import type { Capability, ModelInfo } from '../../gateway';
import { t } from '../../gateway/l10n';

/** A capability's name for the model to read (in the display language: made when needed). */
function capabilityName(c: Capability): string {
  switch (c) {
    case 'chat':
      return t('chat (compatible surface)');
    case 'native':
      return t('native messages surface');
    case 'responses':
      return t('Responses API surface');
    case 'image':
      return t('image generation');
    case 'image-edit':
      return t('image editing');
    case 'video':
      return t('video generation');
  }
}
const ORDER: readonly Capability[] = ['chat', 'native', 'responses', 'image', 'image-edit', 'video'];

/** The models this token can use, one section per capability (a model under each it has). */
export function modelsText(models: readonly ModelInfo[], only?: Capability): string {
  if (!models.length) return t("This token's group sees no models on the gateway.");
  const lines: string[] = [];
  for (const cap of only ? [only] : ORDER) {
    const ids = models
      .filter((m) => m.capabilities?.includes(cap))
      .map((m) => m.id)
      .sort();
    if (ids.length) lines.push(`${capabilityName(cap)}: ${ids.join(', ')}`);
    else if (only) lines.push(t('{0}: none for this token', capabilityName(cap)));
  }
  const unknown = models
    .filter((m) => !m.capabilities?.length)
    .map((m) => m.id)
    .sort();
  if (unknown.length && !only)
    lines.push(t('capability not reported by the gateway (try them as chat models): {0}', unknown.join(', ')));
  if (unknown.length && only) lines.push(t('also listed without a reported capability: {0}', unknown.join(', ')));
  return [
    t(
      '{0} models are visible to this token (listing shows visibility; only a real call proves a model answers).',
      models.length,
    ),
    ...lines,
  ].join('\n');
}

export interface ImageToolInput {
  prompt?: unknown;
  size?: unknown;
}

/** The checked input of the image tool, or the reason it cannot run (for the model to read). */
export function imageToolInput(
  input: ImageToolInput,
  model: string,
): { prompt: string; size: string | undefined } | { error: string } {
  if (!model)
    return {
      error: t(
        "No image model is configured: the user must set modelRelay.models.image to one of the token's image models (see modelRelay_listModels).",
      ),
    };
  const prompt = typeof input.prompt === 'string' ? input.prompt.trim() : '';
  if (!prompt) return { error: t('The prompt is empty: describe the image to generate.') };
  const size = typeof input.size === 'string' && input.size.trim() ? input.size.trim() : undefined;
  if (size && !/^\d{2,5}x\d{2,5}$/.test(size))
    return { error: t('The size "{0}" is not WIDTHxHEIGHT (for example 1024x1024).', size) };
  return { prompt, size };
}

/** The confirmation a billed image call asks for, naming the model. */
export function imageConfirmation(
  model: string,
  prompt: string,
  size: string | undefined,
  price?: string,
): { title: string; message: string } {
  const shown = prompt.length > 300 ? `${prompt.slice(0, 300)}…` : prompt;
  return {
    title: t('Generate an image with {0}?', model),
    message: `${size ? t("Model Relay will ask the gateway's **{0}** for one image ({1}) from this prompt:", model, size) : t("Model Relay will ask the gateway's **{0}** for one image from this prompt:", model)}\n\n> ${shown.replace(/\n/g, '\n> ')}\n\n${price ? t('It costs {0}, billed by the gateway.', price) : t('The gateway bills this call.')}`,
  };
}

/**
 * The confirmation the diagnosis tool asks for: it sends requests with the token to the gateway, and
 * its generation checks and the tools' requests are small billed calls (image and video checks are
 * never run from the agent).
 */
export function diagnoseConfirmation(gateway: string, address: string): { title: string; message: string } {
  return {
    title: t('Diagnose the connection to {0}?', gateway),
    message: `${t("Model Relay will send requests with your token to **{0}** ({1}): its model list, a short generation on each surface the token's models need, and one request from each terminal tool set up for it — only to the gateway's own addresses.", gateway, address)}\n\n${t("The generation checks and the tools' requests are real calls, which the gateway bills (a few tokens each). Image and video checks are not run.")}`,
  };
}
