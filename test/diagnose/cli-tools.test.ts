/**
 * `relay-doctor tools`' report (src/cli/toolsCommand.ts) against the simulator's new-api profile:
 * set-up tools probed once each, the others skipped with their reason, exit 1 when a set-up tool
 * would fail, a stable --json shape, tokens masked.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { CredentialScope } from '../../src/gateway/http/egress';
import { renderTools, toolsExitCode, toolsJson, toolsReport } from '../../src/cli/toolsCommand';
import type { ToolStatus } from '../../src/gateway/tools/types';
import { startSimulator, type Simulator } from '../sim/server';

let sim: Simulator;
before(async () => {
  sim = await startSimulator({ profile: 'real', gateway: 'new-api' });
});
after(() => sim.close());

const terminal = (key: string) => ({ kind: 'terminal' as const, where: 'terminal environment', key });

function gemini(base: string): ToolStatus {
  return {
    tool: 'gemini-cli',
    label: 'Gemini CLI',
    state: 'set-up',
    resolved: {
      baseUrl: { value: base, from: terminal('GOOGLE_GEMINI_BASE_URL') },
      auth: { header: 'x-goog-api-key', masked: 'sk-Pr0...Lk5d', from: terminal('GEMINI_API_KEY') },
      model: { value: 'gemini-2.5-flash', from: terminal('GEMINI_MODEL') },
      overrides: [],
      conflicts: [],
      problems: [],
    },
  };
}
const others: ToolStatus[] = [
  { tool: 'claude-code', label: 'Claude Code', state: 'not-installed' },
  {
    tool: 'codex',
    label: 'Codex CLI',
    state: 'unavailable',
    why: 'No model of this token is served on the Responses API.',
  },
  { tool: 'opencode', label: 'opencode', state: 'not-set-up' },
];

test('a working set-up tool: exit 0; the others skipped with their reason; --json rows', async () => {
  sim.reset();
  const env = { GEMINI_API_KEY: sim.tokens.production };
  const r = await toolsReport({
    statuses: [...others, gemini(sim.url)],
    env,
    scope: new CredentialScope('sim', [sim.url]),
  });
  assert.equal(toolsExitCode(r), 0);
  assert.deepEqual(
    r.tools.map((x) => [x.tool, x.result]),
    [
      ['claude-code', 'skipped'],
      ['codex', 'skipped'],
      ['opencode', 'skipped'],
      ['gemini-cli', 'pass'],
    ],
  );
  assert.equal(sim.log.length, 1, 'one request: the set-up tool only');
  const j = JSON.parse(toolsJson(r, [sim.tokens.production]));
  for (const row of j.tools)
    for (const k of ['tool', 'label', 'state', 'result', 'cause', 'fix', 'details', 'probe']) assert.ok(k in row, k);
  assert.equal(j.tools[3].probe.request, 'POST /v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
  assert.match(j.tools[1].cause, /Responses API/);
  const text = renderTools(r, [sim.tokens.production]);
  assert.match(text, /^PASS {2}Gemini CLI \(set-up\)$/m);
  assert.match(text, /^SKIP {2}Claude Code \(not-installed\)$/m);
  assert.ok(!text.includes(sim.tokens.production) && !JSON.stringify(j).includes(sim.tokens.production));
});

test('a set-up tool that would fail: exit 1, with the cause and fix in its terms', async () => {
  const r = await toolsReport({
    statuses: [gemini(`${sim.url}/v1beta`)],
    env: { GEMINI_API_KEY: sim.tokens.production },
    scope: new CredentialScope('sim', [sim.url]),
  });
  assert.equal(toolsExitCode(r), 1);
  assert.match(r.tools[0].cause, /^GOOGLE_GEMINI_BASE_URL ends in \/v1beta/);
  assert.match(renderTools(r), /^FAIL {2}Gemini CLI \(set-up\)$/m);
});
