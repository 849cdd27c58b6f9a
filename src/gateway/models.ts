/** `GET /v1/models`: the models visible to the token (OpenAI list, new-api additions, Anthropic list). */
import { z } from 'zod';
import { inputError, protocolError } from './errors/factories';
import { type ErrorContext } from './errors/gatewayError';
import { t } from './l10n';

/** Where the token's model list is read (compatible surface). */
export const MODELS_PATH = '/v1/models';

/** chat: /v1/chat/completions; native: /v1/messages; responses: /v1/responses */
export type Capability = 'chat' | 'native' | 'responses' | 'image' | 'image-edit' | 'video';

export interface ModelInfo {
  id: string;
  ownedBy?: string | undefined;
  /** new-api's `supported_endpoint_types`, when the gateway sends it */
  endpointTypes?: string[] | undefined;
  /** capabilities derived from endpointTypes; undefined when unknown */
  capabilities?: Capability[] | undefined;
}

const listSchema = z.object({
  data: z.array(
    z.object({
      id: z.string(),
      owned_by: z.string().nullish(),
      supported_endpoint_types: z.array(z.string()).nullish(),
    }),
  ),
});

/**
 * What each of new-api's endpoint types lets a model do. `openai-response` is the Responses API
 * (`/v1/responses`) only: a model listed with nothing else refuses `/v1/chat/completions`.
 */
const ENDPOINT_CAPS: Record<string, Capability[]> = {
  openai: ['chat'],
  'openai-response': ['responses'],
  anthropic: ['native'],
  gemini: ['chat'],
  'image-generation': ['image', 'image-edit'],
  'openai-video': ['video'],
};

/**
 * Image models that generate but cannot edit, although new-api lists them with the same endpoint
 * type as edit-capable ones ("image-generation"): the gateway answers their edits with 400.
 */
const GENERATION_ONLY: readonly RegExp[] = [/^dall-e-3/i];

export function capabilitiesFromEndpointTypes(
  types: readonly string[] | null | undefined,
  model = '',
): Capability[] | undefined {
  if (!types || types.length === 0) return undefined;
  const caps = new Set<Capability>();
  for (const t of types) for (const c of ENDPOINT_CAPS[t] ?? []) caps.add(c);
  if (GENERATION_ONLY.some((re) => re.test(model))) caps.delete('image-edit');
  return [...caps];
}

/** The capabilities that make a model a chat model, on any of the three surfaces. */
export const CHAT_CAPABILITIES: readonly Capability[] = ['chat', 'native', 'responses'];

/** Whether a model can chat on some surface (capabilities unknown: it may). */
export function canChat(m: { capabilities?: readonly Capability[] | undefined }): boolean {
  return !m.capabilities || m.capabilities.length === 0 || m.capabilities.some((c) => CHAT_CAPABILITIES.includes(c));
}

export function parseModelList(json: unknown, context: ErrorContext): ModelInfo[] {
  // Some gateways answer a bare array.
  const normalized = Array.isArray(json) ? { data: json } : json;
  const r = listSchema.safeParse(normalized);
  if (!r.success) throw protocolError('unexpected_shape', `GET ${MODELS_PATH}`, context);
  return r.data.data.map((m) => ({
    id: m.id,
    ownedBy: m.owned_by ?? undefined,
    endpointTypes: m.supported_endpoint_types ?? undefined,
    capabilities: capabilitiesFromEndpointTypes(m.supported_endpoint_types, m.id),
  }));
}

/** A capability in words ("image generation"), for sentences about it. */
function capabilityName(c: Capability): string {
  switch (c) {
    case 'chat':
      return t('chat');
    case 'native':
      return t('native messages');
    case 'responses':
      return t('responses');
    case 'image':
      return t('image generation');
    case 'image-edit':
      return t('image editing');
    case 'video':
      return t('video generation');
  }
}

/** Refuses a call before it is sent when the model list says the model cannot do it (spec 4, rule 4). */
export function checkCapability(
  caps: readonly Capability[] | undefined,
  model: string,
  cap: Capability,
  context: ErrorContext,
  alternatives: readonly string[] = [],
): void {
  if (caps && !caps.includes(cap)) {
    const name = capabilityName(cap);
    const some = alternatives.length
      ? ` ${t("This token's {0} models: {1}.", name, alternatives.slice(0, 8).join(', '))}`
      : '';
    throw inputError(
      t(
        'The model "{0}" does not support {1} (it supports: {2}).',
        model,
        name,
        caps.map(capabilityName).join(', ') || t('nothing known'),
      ),
      `${t('Choose a {0} model; each capability needs a model of that capability.', name)}${some}`,
      context,
      'capability_mismatch',
    );
  }
}
