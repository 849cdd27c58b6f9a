// Real-host activation for `npm run bench`: code-server launched through the e2e harness, the
// extension host's own timing of Model Relay's activation read from "Developer: Show Running
// Extensions", several launches, the median. Needs model-relay.vsix (npm run bench packages it)
// and the compiled simulator in out/.
import { fileURLToPath } from 'node:url';
import { startScenario } from '../test/e2e/harness.mjs';

const NOOP = fileURLToPath(new URL('../test/e2e/fixtures/noop-ext', import.meta.url));

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/**
 * Launches the real host `runs` times; returns every activation figure (ms) and their median, the
 * same for a no-op extension activating at the same moment in the same launch (the host's floor), and
 * the median of the per-launch differences (`overMedian`: what Model Relay adds, the load of the
 * machine cancelled out launch by launch).
 */
export async function realHostActivationTimes(runs = 3) {
  const ms = [];
  const floor = [];
  const failures = [];
  for (let i = 0; i < runs; i++) {
    // Tall enough that the Running Extensions list (virtualised) shows every row.
    const s = await startScenario({ extraExtensions: [NOOP], viewport: { width: 1400, height: 2400 } });
    try {
      await s.vs.waitForText('Relay: production', 60_000);
      const t = await s.vs.activationTimes(['Model Relay', 'Noop Activation Baseline (bench fixture)'], {
        timeout: 60_000,
      });
      ms.push(t['Model Relay'].ms);
      floor.push(t['Noop Activation Baseline (bench fixture)'].ms);
    } catch (e) {
      // A launch that could not be read is reported, not silently dropped.
      failures.push(e.message.split('\n')[0]);
    } finally {
      await s.stop();
    }
  }
  const over = ms.map((x, i) => x - floor[i]);
  return {
    ms,
    floor,
    over,
    failures,
    median: ms.length ? median(ms) : NaN,
    floorMedian: floor.length ? median(floor) : NaN,
    overMedian: over.length ? median(over) : NaN,
  };
}
