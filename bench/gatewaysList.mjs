// The model lists of three gateways (bench/run.mjs section "gatewaysList"), as VS Code's
// provideLanguageModelChatInformation reads them: the core's listModelsAcross over three simulators
// of 300 models each, over real HTTP. Two answer after a remote gateway's round trip (ANSWER_MS),
// the third does not answer (its latency is far beyond the bound, LIST_ACROSS_BOUND_MS). The figure
// is the time until the lists of the answering gateways are back, against the slowest answering
// gateway's own list read alone in the same run; the goal is ≤ 1.2×. The provider takes late answers
// (onLate: it fires its change event when one comes), so once a gateway was found silent (the first
// read, which waits for the bound and is reported apart) it holds no one.
import { join } from 'node:path';

const MODELS = 300;
/** The answering gateways' round trips (ms): a near and a far gateway. */
const ANSWER_MS = [80, 200];
/** The gateway that does not answer: far longer than the bound. */
const SILENT_MS = 30_000;
const GOAL = 1.2;

export async function gatewaysListFigures({ outDir, runs, median, r2, row }) {
  const { createRequire } = await import('node:module');
  const require = createRequire(import.meta.url);
  const { startSimulator } = require(join(outDir, 'test/sim/server.js'));
  const core = require(join(outDir, 'src/gateway/index.js'));
  const latencies = [...ANSWER_MS, SILENT_MS];
  const sims = await Promise.all(latencies.map(() => startSimulator()));
  try {
    sims.forEach((s, i) => {
      s.fault({ kind: 'manyModels', models: MODELS });
      s.fault({ kind: 'latency', ms: latencies[i] });
    });
    const profiles = sims.map((s, i) => ({ id: `g${i + 1}`, name: `Gateway ${i + 1}`, baseUrl: s.url }));
    const set = new core.GatewaySet(profiles, {
      token: (id) => sims[Number(id.slice(1)) - 1].tokens.production,
      retry: { maxRetries: 0 },
    });
    const slowest = set.get(`g${ANSWER_MS.length}`);
    const bound = core.LIST_ACROSS_BOUND_MS;
    const onLate = () => undefined;
    // The first read knows none of the gateways: the silent one costs the bound, once.
    let t0 = performance.now();
    const first = await core.listModelsAcross(set, { boundMs: bound, onLate });
    const firstMs = performance.now() - t0;
    if (!first[ANSWER_MS.length].timedOut) throw new Error('the silent gateway was not reported timed out');
    const across = [];
    const alone = [];
    for (let i = 0; i < runs; i++) {
      t0 = performance.now();
      const lists = await core.listModelsAcross(set, { boundMs: bound, onLate });
      across.push(performance.now() - t0);
      const counts = lists.map((l) => l.models?.length ?? (l.pending ? 'pending' : 'failed'));
      if (counts.join() !== [...ANSWER_MS.map(() => MODELS), 'pending'].join())
        throw new Error(`unexpected lists: ${counts.join(', ')}`);
      t0 = performance.now();
      const own = await slowest.listModels();
      alone.push(performance.now() - t0);
      if (own.length !== MODELS) throw new Error(`the slowest gateway listed ${own.length} models`);
    }
    const a = median(across);
    const b = median(alone);
    const ratio = a / b;
    row(
      '13 provideLanguageModelChatInformation across three gateways',
      `${r2(a)} ms for the lists of 3 gateways × ${MODELS} models (answering in ${ANSWER_MS.join(' / ')} ms, the third silent) vs ${r2(b)} ms for the slowest answering gateway's list alone: ${r2(ratio)}× · the silent one reported timed out at the bound (${bound} ms), which the first read of all (${Math.round(firstMs)} ms) waits for once`,
      { acrossMs: a, aloneMs: b, ratio, boundMs: bound, firstMs, answerMs: ANSWER_MS, models: MODELS },
      `≤ ${GOAL}× the slowest answering gateway's list`,
      ratio <= GOAL,
    );
  } finally {
    await Promise.all(sims.map((s) => s.close()));
  }
}
