/**
 * Check 7: a short streamed reply per surface — complete, flowing, not buffered by a proxy. A
 * reasoning model's reasoning counts as flowing too, and a reply that used its budget on reasoning
 * is complete.
 */
import { surfaceAdapter } from '../../chat/chat';
import type { ChatResult } from '../../chat/types';
import { joinUrl } from '../../endpoint';
import { emptyReplyError } from '../../errors/factories';
import { isGatewayError, type Surface } from '../../errors/gatewayError';
import { DEFAULT_BURST } from '../../http/sseStream';
import { t } from '../../l10n';
import { perSurface } from '../check';
import type { DiagnosisContext } from '../context';
import { outcomeFromError, type Outcome } from '../outcomeFromError';
import { spentOnReasoning } from './generation';

/** Words of a short reply (several chunks, so a burst can be recognised). */
const STREAM_PROMPT = 'Reply with exactly these words: one two three four five six';

/** One sentence per surface: the words the three sentences of a judgement differ in are the surface's name. */
function bySurface(surface: Surface, words: Record<Surface, () => string>): string {
  return words[surface]();
}

function flowed(surface: Surface, timing: string): string {
  return bySurface(surface, {
    compatible: () => t('A short streamed reply on the compatible surface flowed progressively ({0}).', timing),
    native: () => t('A short streamed reply on the native surface flowed progressively ({0}).', timing),
    responses: () => t('A short streamed reply on the responses surface flowed progressively ({0}).', timing),
  });
}

function tooQuick(surface: Surface, timing: string): string {
  return bySurface(surface, {
    compatible: () =>
      t(
        'A short streamed reply on the compatible surface arrived complete, with its end marker ({0}); it was too quick to tell flowing from buffered, and no burst after a wait was seen.',
        timing,
      ),
    native: () =>
      t(
        'A short streamed reply on the native surface arrived complete, with its end marker ({0}); it was too quick to tell flowing from buffered, and no burst after a wait was seen.',
        timing,
      ),
    responses: () =>
      t(
        'A short streamed reply on the responses surface arrived complete, with its end marker ({0}); it was too quick to tell flowing from buffered, and no burst after a wait was seen.',
        timing,
      ),
  });
}

function ignoredStream(surface: Surface): string {
  return bySurface(surface, {
    compatible: () =>
      t(
        'A streamed request on the compatible surface was answered with one JSON body instead of an event stream: the gateway or a proxy ignores stream: true.',
      ),
    native: () =>
      t(
        'A streamed request on the native surface was answered with one JSON body instead of an event stream: the gateway or a proxy ignores stream: true.',
      ),
    responses: () =>
      t(
        'A streamed request on the responses surface was answered with one JSON body instead of an event stream: the gateway or a proxy ignores stream: true.',
      ),
  });
}

function burst(surface: Surface, timing: string): string {
  return bySurface(surface, {
    compatible: () =>
      t(
        'The stream on the compatible surface arrived in one burst ({0}): a proxy between you and the gateway buffers responses.',
        timing,
      ),
    native: () =>
      t(
        'The stream on the native surface arrived in one burst ({0}): a proxy between you and the gateway buffers responses.',
        timing,
      ),
    responses: () =>
      t(
        'The stream on the responses surface arrived in one burst ({0}): a proxy between you and the gateway buffers responses.',
        timing,
      ),
  });
}

function judge(r: ChatResult, surface: Surface, url: string, masked: string | undefined, timing: string): Outcome {
  const common = { httpStatus: 200, url, maskedToken: masked, details: [timing] };
  if (r.streamIgnored) {
    return {
      ...common,
      result: 'warn',
      cause: ignoredStream(surface),
      fix: t('Nothing breaks, but replies will not appear progressively; check the proxy, or turn streaming off.'),
      fixAction: { kind: 'disable-stream' },
    };
  }
  if (r.buffered) {
    return {
      ...common,
      result: 'warn',
      cause: burst(surface, timing),
      fix: t(
        'Turn streaming off (modelRelay.stream), or ask for the proxy to pass text/event-stream through unbuffered.',
      ),
      fixAction: { kind: 'disable-stream' },
    };
  }
  const judged = r.durationMs >= DEFAULT_BURST.minWaitMs;
  return {
    ...common,
    result: 'pass',
    cause: judged ? flowed(surface, timing) : tooQuick(surface, timing),
    fix: '',
  };
}

interface Seen {
  text: number;
  reasoning: number;
  firstAt: number | undefined;
}

function timingText(seen: Seen, durationMs: number): string {
  const first = seen.firstAt ?? '-';
  if (seen.reasoning)
    return t(
      '{0} chunks of reasoning and {1} of text, first after {2} ms, complete after {3} ms',
      seen.reasoning,
      seen.text,
      first,
      durationMs,
    );
  return seen.text === 1
    ? t('1 text chunk, first after {0} ms, complete after {1} ms', first, durationMs)
    : t('{0} text chunks, first after {1} ms, complete after {2} ms', seen.text, first, durationMs);
}

/** A stream that broke on the way (after `chunks` pieces): the error, with the proxy in mind. */
function brokenStream(ctx: DiagnosisContext, e: unknown, model: string, chunks: number): Outcome {
  const note = chunks
    ? t(
        'The same call without streaming works, so the stream is being broken on the way: typically a proxy that buffers or cuts streamed responses — {0} chunk(s) arrived first.',
        chunks,
      )
    : t(
        'The same call without streaming works, so the stream is being broken on the way: typically a proxy that buffers or cuts streamed responses.',
      );
  const o = outcomeFromError(ctx, e, { model, listed: ctx.listed(model), streamNote: note });
  if (
    isGatewayError(e) &&
    (e.kind === 'stream_interrupted' || e.kind === 'timeout' || e.kind === 'network' || e.kind === 'protocol')
  )
    return {
      ...o,
      fix: t('Turn streaming off (modelRelay.stream) until the proxy is fixed. {0}', o.fix),
      fixAction: { kind: 'disable-stream' },
    };
  return o;
}

async function run(ctx: DiagnosisContext, surface: Surface, model: string): Promise<Outcome> {
  const url = joinUrl(ctx.usedBase!, surfaceAdapter(surface).path);
  const started = ctx.now();
  const seen: Seen = { text: 0, reasoning: 0, firstAt: undefined };
  let result: ChatResult | undefined;
  try {
    for await (const ev of ctx.client!.chatStream({
      surface,
      model,
      messages: [{ role: 'user', content: STREAM_PROMPT }],
      maxTokens: 24,
      acceptEmptyReply: true,
      signal: ctx.signal,
    })) {
      if (ev.type === 'text' || ev.type === 'reasoning') {
        seen[ev.type]++;
        seen.firstAt ??= ctx.now() - started;
      }
      if (ev.type === 'done') result = ev.result;
    }
  } catch (e) {
    return brokenStream(ctx, e, model, seen.text + seen.reasoning);
  }
  if (!result)
    return {
      result: 'fail',
      httpStatus: 200,
      url,
      cause: t('The stream ended without its end marker.'),
      fix: t('Turn streaming off and check the proxy.'),
      fixAction: { kind: 'disable-stream' },
    };
  // Complete, yet empty: not the stream's fault (a reasoning model that used the budget reasoning is fine).
  if (!result.text && !result.toolCalls.length && !spentOnReasoning(result)) {
    const rid = { status: 200, ...(result.requestId ? { requestId: result.requestId } : {}) };
    const empty = emptyReplyError(
      result.finishReason,
      !!result.reasoning,
      { surface, method: 'POST', url, model },
      rid,
    );
    return outcomeFromError(ctx, empty, { model, listed: ctx.listed(model) });
  }
  return judge(result, surface, url, ctx.masked, timingText(seen, result.durationMs));
}

/** Streaming is tested only where the same call without streaming worked. */
function afterGeneration(generation: 'generate-chat' | 'generate-native' | 'generate-responses') {
  return (ctx: DiagnosisContext) => {
    const b = ctx.blocked();
    if (b) return b;
    if (ctx.results.get(generation)?.result !== 'pass')
      return {
        cause: t('The non-streamed call did not succeed, so streaming was not tested.'),
        fix: t('Fix the generation check first.'),
      };
    return undefined;
  };
}

export const streamCompatibleCheck = perSurface('compatible', {
  id: 'stream-compatible',
  noModelFix: () => '',
  skip: afterGeneration('generate-chat'),
  run: (ctx, model) => run(ctx, 'compatible', model),
});
export const streamNativeCheck = perSurface('native', {
  id: 'stream-native',
  noModelFix: () => '',
  skip: afterGeneration('generate-native'),
  run: (ctx, model) => run(ctx, 'native', model),
});
export const streamResponsesCheck = perSurface('responses', {
  id: 'stream-responses',
  noModelFix: () => '',
  skip: afterGeneration('generate-responses'),
  run: (ctx, model) => run(ctx, 'responses', model),
});
