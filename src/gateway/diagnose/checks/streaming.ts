/** Check 7: a short streamed reply per surface — complete, flowing, not buffered by a proxy. */
import { surfaceAdapter } from '../../chat/chat';
import type { ChatResult } from '../../chat/types';
import { joinUrl } from '../../endpoint';
import { isGatewayError, type Surface } from '../../errors/gatewayError';
import { DEFAULT_BURST } from '../../http/sseStream';
import { perSurface } from '../check';
import type { DiagnosisContext } from '../context';
import { outcomeFromError, type Outcome } from '../outcomeFromError';

/** Words of a short reply (several chunks, so a burst can be recognised). */
const STREAM_PROMPT = 'Reply with exactly these words: one two three four five six';

function judge(r: ChatResult, surface: Surface, url: string, masked: string | undefined, timing: string): Outcome {
  const common = { httpStatus: 200, url, maskedToken: masked, details: [timing] };
  if (r.streamIgnored) {
    return { ...common, result: 'warn', cause: `A streamed request on the ${surface} surface was answered with one JSON body instead of an event stream: the gateway or a proxy ignores stream: true.`, fix: 'Nothing breaks, but replies will not appear progressively; check the proxy, or turn streaming off.', fixAction: { kind: 'disable-stream' } };
  }
  if (r.buffered) {
    return { ...common, result: 'warn', cause: `The stream on the ${surface} surface arrived in one burst (${timing}): a proxy between you and the gateway buffers responses (spec 6).`, fix: 'Turn streaming off (modelRelay.stream), or ask for the proxy to pass text/event-stream through unbuffered.', fixAction: { kind: 'disable-stream' } };
  }
  const judged = r.durationMs >= DEFAULT_BURST.minWaitMs;
  return {
    ...common,
    result: 'pass',
    cause: judged
      ? `A short streamed reply on the ${surface} surface flowed progressively (${timing}).`
      : `A short streamed reply on the ${surface} surface arrived complete, with its end marker (${timing}); it was too quick to tell flowing from buffered, and no burst after a wait was seen.`,
    fix: '',
  };
}

async function run(ctx: DiagnosisContext, surface: Surface, model: string): Promise<Outcome> {
  const url = joinUrl(ctx.usedBase!, surfaceAdapter(surface).path);
  const started = ctx.now();
  let firstAt: number | undefined;
  let chunks = 0;
  try {
    for await (const ev of ctx.client!.chatStream({ surface, model, messages: [{ role: 'user', content: STREAM_PROMPT }], maxTokens: 24, signal: ctx.signal })) {
      if (ev.type === 'text') {
        chunks++;
        firstAt ??= ctx.now() - started;
      }
      if (ev.type === 'done') {
        const timing = `${chunks} text chunk${chunks === 1 ? '' : 's'}, first after ${firstAt ?? '-'} ms, complete after ${ev.result.durationMs} ms`;
        return judge(ev.result, surface, url, ctx.masked, timing);
      }
    }
    return { result: 'fail', httpStatus: 200, url, cause: 'The stream ended without its end marker.', fix: 'Turn streaming off and check the proxy.', fixAction: { kind: 'disable-stream' } };
  } catch (e) {
    const note = `The same call without streaming works, so the stream is being broken on the way: typically a proxy that buffers or cuts streamed responses (spec 6)${chunks ? ` — ${chunks} chunk(s) arrived first` : ''}.`;
    const o = outcomeFromError(ctx, e, { model, listed: ctx.listed(model), streamNote: note });
    if (isGatewayError(e) && (e.kind === 'stream_interrupted' || e.kind === 'timeout' || e.kind === 'network' || e.kind === 'protocol')) return { ...o, fix: `Turn streaming off (modelRelay.stream) until the proxy is fixed. ${o.fix}`, fixAction: { kind: 'disable-stream' } };
    return o;
  }
}

/** Streaming is tested only where the same call without streaming worked. */
function afterGeneration(generation: 'generate-chat' | 'generate-native') {
  return (ctx: DiagnosisContext) => {
    const b = ctx.blocked();
    if (b) return b;
    if (ctx.results.get(generation)?.result !== 'pass') return { cause: 'The non-streamed call did not succeed, so streaming was not tested.', fix: 'Fix the generation check first.' };
    return undefined;
  };
}

export const streamCompatibleCheck = perSurface('compatible', { id: 'stream-compatible', noModelFix: '', skip: afterGeneration('generate-chat'), run: (ctx, model) => run(ctx, 'compatible', model) });
export const streamNativeCheck = perSurface('native', { id: 'stream-native', noModelFix: '', skip: afterGeneration('generate-native'), run: (ctx, model) => run(ctx, 'native', model) });
