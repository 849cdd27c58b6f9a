/** Test fixtures: one simulator (or one per profile) for a whole test file, reset before each test. */
import { before, after, beforeEach } from 'node:test';
import { startSimulator, type Profile, type SimConfig, type Simulator } from './server';

export interface BothProfiles {
  strict: Simulator;
  real: Simulator;
  of(profile: Profile): Simulator;
}

/** `config`: what each profile's simulator starts with beyond its defaults. */
export function useBothProfiles(config: (profile: Profile) => Partial<SimConfig> = () => ({})): BothProfiles {
  const sims = {} as { strict: Simulator; real: Simulator };
  before(async () => {
    sims.strict = await startSimulator({ ...config('strict'), profile: 'strict' });
    sims.real = await startSimulator({ ...config('real'), profile: 'real' });
  });
  after(async () => {
    await sims.strict?.close();
    await sims.real?.close();
  });
  beforeEach(() => {
    sims.strict.reset();
    sims.real.reset();
  });
  return {
    get strict() {
      return sims.strict;
    },
    get real() {
      return sims.real;
    },
    of: (profile) => sims[profile],
  };
}

/** A strict simulator for the whole file: `sim()` is valid inside tests. */
export function useSimulator(): () => Simulator {
  let sim: Simulator;
  before(async () => {
    sim = await startSimulator();
  });
  after(() => sim.close());
  beforeEach(() => sim.reset());
  return () => sim;
}
