/** Check 4: every configured model is in the token's model list, with the capability it is used for. */
import { t } from '../../l10n';
import type { Capability } from '../../models';
import type { Check } from '../check';
import type { DiagnosisContext } from '../context';
import type { Outcome } from '../outcomeFromError';

/** Whether listed capabilities serve a configured use: the chat model may answer on /v1/responses only (it is moved there). */
function servesAs(caps: readonly Capability[], cap: Capability): boolean {
  return caps.includes(cap) || (cap === 'chat' && caps.includes('responses'));
}

function run(ctx: DiagnosisContext): Outcome {
  const list = ctx.modelList!;
  const ids = list.map((m) => m.id);
  const missing: string[] = [];
  const wrongCap: string[] = [];
  const details: string[] = [];
  for (const w of ctx.wanted) {
    const info = list.find((m) => m.id === w.model);
    if (!info) {
      const lower = w.model.toLowerCase();
      const near = ids.filter(
        (id) => id.toLowerCase() === lower || id.toLowerCase().includes(lower) || lower.includes(id.toLowerCase()),
      );
      const notListed = t(
        'The {0} model "{1}" is not in this token\'s model list: the token\'s group probably cannot see it (or the id is mistyped).',
        w.label,
        w.model,
      );
      missing.push(near.length ? t('{0} Similar visible ids: {1}.', notListed, near.join(', ')) : notListed);
      details.push(t('{0}: {1} — not listed', w.label, w.model));
    } else if (info.capabilities && !servesAs(info.capabilities, w.cap)) {
      wrongCap.push(
        t(
          'The {0} model "{1}" is listed, but the gateway says it supports {2}, not {0}: each capability needs a model of that capability.',
          w.label,
          w.model,
          info.capabilities.join(', ') || t('nothing known'),
        ),
      );
      details.push(t('{0}: {1} — listed, capabilities {2}', w.label, w.model, info.capabilities.join(', ')));
    } else {
      details.push(
        info.capabilities
          ? t('{0}: {1} — listed ({2})', w.label, w.model, info.capabilities.join(', '))
          : t('{0}: {1} — listed', w.label, w.model),
      );
    }
  }
  if (!missing.length && !wrongCap.length) {
    return {
      result: 'pass',
      maskedToken: ctx.masked,
      cause: t(
        "Every configured model is in the token's list ({0}). Listing alone does not prove generation works: see the generation checks.",
        ctx.wanted.map((w) => w.model).join(', '),
      ),
      fix: '',
      details,
    };
  }
  return {
    result: 'fail',
    maskedToken: ctx.masked,
    cause: [...missing, ...wrongCap].join(' '),
    fix: missing.length
      ? t(
          "Pick models from this token's list ({0}), or switch to a token of a group that can see them.",
          `${ids.slice(0, 12).join(', ')}${ids.length > 12 ? ', …' : ''}`,
        )
      : t('Choose a model of the right capability for each setting.'),
    details,
    ...(missing.length ? { fixAction: { kind: 'switch-token' } } : {}),
  };
}

export const visibilityCheck: Check = {
  id: 'visibility',
  skip: (ctx) => {
    if (!ctx.wanted.length)
      return {
        cause: t('No model is configured, so visibility, generation and streaming were not tested.'),
        fix: t('Set the models to check (modelRelay.models.*, or --chat-model / --native-model for relay-doctor).'),
      };
    if (ctx.modelList) return undefined;
    const b = ctx.blocked();
    return {
      cause: b?.cause ?? t('The model list could not be read (see the token check).'),
      fix: b?.fix ?? t('Fix the token check first.'),
    };
  },
  run,
};
