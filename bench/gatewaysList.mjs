// The model lists of three gateways (bench/run.mjs section "gatewaysList"), as VS Code's
// provideLanguageModelChatInformation reads them: the core's listModelsAcross over three simulators
// of 300 models each, over real HTTP. Two answer after a remote gateway's round trip (ANSWER_MS),
// the third does not answer (its latency is far beyond the bound, LIST_ACROSS_BOUND_MS). The figure
// is the time until the lists of the answering gateways are back, against the slowest answering
// gateway's own list read alone in the same run; the goal is ≤ 1.2×, for a window's first question
// (no gateway read before) and for later ones. The provider takes late answers (onLate: it fires its
// change event when one comes), so a silent gateway holds no one, not even the first time.
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
  // the set of gateways and the provider's call across them: bench/messages.ts, against their types
  const { benchGateways, listAcross } = require(join(outDir, 'bench/messages.js'));
  const latencies = [...ANSWER_MS, SILENT_MS];
  const sims = await Promise.all(latencies.map(() => startSimulator()));
  try {
    sims.forEach((s, i) => {
      s.fault({ kind: 'manyModels', models: MODELS });
      s.fault({ kind: 'latency', ms: latencies[i] });
    });
    const newSet = () =>
      benchGateways(
        sims.map((s) => s.url),
        (i) => sims[i].tokens.production,
      );
    const bound = core.LIST_ACROSS_BOUND_MS;
    /** the gateways whose lists came late, as the provider's change event would tell VS Code */
    let lateIds = new Set();
    const onLate = (l) => lateIds.add(l.gateway.id);
    const answering = ANSWER_MS.length;
    const across = [];
    const known = [];
    const alone = [];
    for (let i = 0; i < runs; i++) {
      // A window's first question: none of the gateways read before (new clients).
      const set = newSet();
      lateIds = new Set();
      let t0 = performance.now();
      const lists = await listAcross(set, onLate);
      across.push(performance.now() - t0);
      const got = lists.slice(0, answering).filter((l) => l.models?.length === MODELS).length;
      if (lists[answering].models) throw new Error('the silent gateway answered');
      // A later question, after the change event of the late answering ones: their last answers known.
      const pendingAnswering = lists
        .slice(0, answering)
        .filter((l) => l.pending)
        .map((l) => l.gateway.id);
      const until = performance.now() + bound;
      while (pendingAnswering.some((id) => !lateIds.has(id)) && performance.now() < until)
        await new Promise((r) => setTimeout(r, 5));
      t0 = performance.now();
      const again = await listAcross(set, onLate);
      known.push(performance.now() - t0);
      if (again.slice(0, answering).some((l) => l.models?.length !== MODELS))
        throw new Error(
          `the answering gateways' lists were not all back: ${again.map((l) => l.models?.length ?? 'none')}`,
        );
      t0 = performance.now();
      const own = await set.get(`g${answering}`).listModels();
      alone.push(performance.now() - t0);
      if (own.length !== MODELS) throw new Error(`the slowest gateway listed ${own.length} models`);
      if (i === 0) across.firstGot = got;
    }
    const a = median(across);
    const k = median(known);
    const b = median(alone);
    const ratio = a / b;
    const ratioKnown = k / b;
    row(
      '13 provideLanguageModelChatInformation across three gateways',
      `first question ${r2(a)} ms (${across.firstGot} of ${answering} answering lists in it, the rest through onLate), later questions ${r2(k)} ms (all answering lists), for 3 gateways × ${MODELS} models answering in ${ANSWER_MS.join(' / ')} ms, the third silent, vs ${r2(b)} ms for the slowest answering gateway's list alone: ${r2(ratio)}× / ${r2(ratioKnown)}× · the silent one is aborted at the bound (${bound} ms) in the background`,
      { firstMs: a, knownMs: k, aloneMs: b, ratio, ratioKnown, boundMs: bound, answerMs: ANSWER_MS, models: MODELS },
      `≤ ${GOAL}× the slowest answering gateway's list, first and later questions`,
      ratio <= GOAL && ratioKnown <= GOAL,
    );
  } finally {
    await Promise.all(sims.map((s) => s.close()));
  }
}
