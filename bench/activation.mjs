// Real-host activation for `npm run bench`: code-server launched through the e2e harness, the
// extension host's own timing of Model Relay's activation read from "Developer: Show Running
// Extensions", several launches, the median. Needs model-relay.vsix (npm run bench packages it)
// and the compiled simulator in out/.
import { startScenario } from '../test/e2e/harness.mjs';

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Launches the real host `runs` times; returns every activation figure (ms) and their median. */
export async function realHostActivationTimes(runs = 3) {
  const ms = [];
  for (let i = 0; i < runs; i++) {
    const s = await startScenario({});
    try {
      await s.vs.waitForText('Relay: production', 60_000);
      ms.push((await s.vs.activationTime('Model Relay')).ms);
    } finally {
      await s.stop();
    }
  }
  return { ms, median: median(ms) };
}
