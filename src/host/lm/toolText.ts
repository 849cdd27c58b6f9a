/**
 * What the language-model tools answer, as text a model reads well: the token's models per
 * capability, and the confirmation before a billed image call. Plain Node, no `vscode`.
 */
import type { Capability, ModelInfo } from '../../gateway';

const NAMES: Record<Capability, string> = { chat: 'chat (compatible surface)', native: 'native messages surface', image: 'image generation', 'image-edit': 'image editing', video: 'video generation' };
const ORDER: readonly Capability[] = ['chat', 'native', 'image', 'image-edit', 'video'];

/** The models this token can use, one section per capability (a model under each it has). */
export function modelsText(models: readonly ModelInfo[], only?: Capability): string {
  if (!models.length) return "This token's group sees no models on the gateway.";
  const lines: string[] = [];
  for (const cap of only ? [only] : ORDER) {
    const ids = models.filter((m) => m.capabilities?.includes(cap)).map((m) => m.id).sort();
    if (ids.length) lines.push(`${NAMES[cap]}: ${ids.join(', ')}`);
    else if (only) lines.push(`${NAMES[cap]}: none for this token`);
  }
  const unknown = models.filter((m) => !m.capabilities?.length).map((m) => m.id).sort();
  if (unknown.length && !only) lines.push(`capability not reported by the gateway (try them as chat models): ${unknown.join(', ')}`);
  if (unknown.length && only) lines.push(`also listed without a reported capability: ${unknown.join(', ')}`);
  return [`${models.length} models are visible to this token (listing shows visibility; only a real call proves a model answers).`, ...lines].join('\n');
}

export interface ImageToolInput {
  prompt?: unknown;
  size?: unknown;
}

/** The checked input of the image tool, or the reason it cannot run (for the model to read). */
export function imageToolInput(input: ImageToolInput, model: string): { prompt: string; size: string | undefined } | { error: string } {
  if (!model) return { error: 'No image model is configured: the user must set modelRelay.models.image to one of the token\'s image models (see modelRelay_listModels).' };
  const prompt = typeof input.prompt === 'string' ? input.prompt.trim() : '';
  if (!prompt) return { error: 'The prompt is empty: describe the image to generate.' };
  const size = typeof input.size === 'string' && input.size.trim() ? input.size.trim() : undefined;
  if (size && !/^\d{2,5}x\d{2,5}$/.test(size)) return { error: `The size "${size}" is not WIDTHxHEIGHT (for example 1024x1024).` };
  return { prompt, size };
}

/** The confirmation a billed image call asks for, naming the model. */
export function imageConfirmation(model: string, prompt: string, size: string | undefined, price?: string): { title: string; message: string } {
  const shown = prompt.length > 300 ? `${prompt.slice(0, 300)}…` : prompt;
  return {
    title: `Generate an image with ${model}?`,
    message: `Model Relay will ask the gateway's **${model}** for one image${size ? ` (${size})` : ''} from this prompt:\n\n> ${shown.replace(/\n/g, '\n> ')}\n\n${price ? `It costs ${price}, billed by the gateway.` : 'The gateway bills this call.'}`,
  };
}
