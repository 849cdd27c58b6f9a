/** Check 4: every configured model is in the token's model list, with the capability it is used for. */
import type { Check } from '../check';
import type { DiagnosisContext } from '../context';
import type { Outcome } from '../outcomeFromError';
import type { FixAction } from '../types';

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
      const near = ids.filter((id) => id.toLowerCase() === lower || id.toLowerCase().includes(lower) || lower.includes(id.toLowerCase()));
      missing.push(`The ${w.label} model "${w.model}" is not in this token's model list: the token's group probably cannot see it (or the id is mistyped).${near.length ? ` Similar visible ids: ${near.join(', ')}.` : ''}`);
      details.push(`${w.label}: ${w.model} — not listed`);
    } else if (info.capabilities && !info.capabilities.includes(w.cap)) {
      wrongCap.push(`The ${w.label} model "${w.model}" is listed, but the gateway says it supports ${info.capabilities.join(', ') || 'nothing known'}, not ${w.label}: each capability needs a model of that capability (spec 4, rule 4).`);
      details.push(`${w.label}: ${w.model} — listed, capabilities ${info.capabilities.join(', ')}`);
    } else {
      details.push(`${w.label}: ${w.model} — listed${info.capabilities ? ` (${info.capabilities.join(', ')})` : ''}`);
    }
  }
  if (!missing.length && !wrongCap.length) {
    return { result: 'pass', maskedToken: ctx.masked, cause: `Every configured model is in the token's list (${ctx.wanted.map((w) => w.model).join(', ')}). Listing alone does not prove generation works: see the generation checks.`, fix: '', details };
  }
  return {
    result: 'fail',
    maskedToken: ctx.masked,
    cause: [...missing, ...wrongCap].join(' '),
    fix: missing.length ? `Pick models from this token's list (${ids.slice(0, 12).join(', ')}${ids.length > 12 ? ', …' : ''}), or switch to a token of a group that can see them.` : 'Choose a model of the right capability for each setting.',
    details,
    ...(missing.length ? { fixAction: { kind: 'switch-token' } as FixAction } : {}),
  };
}

export const visibilityCheck: Check = {
  id: 'visibility',
  skip: (ctx) => {
    if (!ctx.wanted.length) return { cause: 'No model is configured, so visibility, generation and streaming were not tested.', fix: 'Set the models to check (modelRelay.models.*, or --chat-model / --native-model for relay-doctor).' };
    if (ctx.modelList) return undefined;
    const b = ctx.blocked();
    return { cause: b?.cause ?? 'The model list could not be read (see the token check).', fix: b?.fix ?? 'Fix the token check first.' };
  },
  run,
};
