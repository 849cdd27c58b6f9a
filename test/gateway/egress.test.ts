/**
 * The credential gate (issue 36 §1): a token leaves only for its gateway's configured origins. The
 * gate itself (admit), the one door (sendOnce) with a real server "elsewhere" that records every
 * credential it sees, a terminal tool whose file names another address, and the source rule that
 * nothing but the gate spells a credential header or reaches undici's request().
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { Agent } from 'undici';
import { admitRequest, CredentialScope, originOf } from '../../src/gateway/http/egress';
import { sendOnce } from '../../src/gateway/http/attempt';
import { isGatewayError, type GatewayError } from '../../src/gateway/errors/gatewayError';
import { probeTool, type ProbeTarget } from '../../src/gateway/tools/probes';
import { GatewayClient } from '../../src/gateway/client';
import { probeLines } from '../../src/gateway/diagnose/toolCheck';
import { startElsewhere, type Elsewhere } from '../sim/elsewhere';
import { startSimulator, type Simulator } from '../sim/server';

let sim: Simulator;
let away: Elsewhere;
before(async () => {
  sim = await startSimulator({ profile: 'real', gateway: 'new-api' });
  away = await startElsewhere();
});
after(async () => {
  await sim.close();
  await away.close();
});

const SECRET = 'sk-egressTEST0000000000000000000000abcd';

test('admit: the credential is attached only at an origin of its scope, in the way the scheme says', () => {
  const scope = new CredentialScope('production', ['https://gw.example.com', 'https://backup.example.com:8443/']);
  assert.deepEqual(scope.origins, ['https://gw.example.com', 'https://backup.example.com:8443']);
  const ok = admitRequest(
    {
      url: 'https://GW.example.com:443/v1/models',
      headers: { accept: 'application/json' },
      credential: { secret: SECRET, scheme: 'bearer', scope, headers: { 'x-team': 'a', Authorization: 'no' } },
    },
    {},
  );
  assert.equal(ok.headers.authorization, `Bearer ${SECRET}`);
  assert.equal(ok.headers['x-team'], 'a', "the profile's own headers travel with the token");
  const native = admitRequest(
    {
      url: 'https://backup.example.com:8443/v1/messages',
      headers: {},
      credential: { secret: SECRET, scheme: 'x-api-key', scope },
    },
    {},
  );
  assert.equal(native.headers['x-api-key'], SECRET);
  const q = admitRequest(
    {
      url: 'https://gw.example.com/api/log/token?p=1',
      headers: {},
      credential: { secret: SECRET, scheme: 'query-key', scope },
    },
    {},
  );
  assert.equal(q.url, `https://gw.example.com/api/log/token?p=1&key=${SECRET}`);
  assert.deepEqual(q.headers, {});
  for (const url of [
    'http://gw.example.com/v1/models', // another scheme is another origin
    'https://gw.example.com.evil.test/v1/models',
    'https://backup.example.com/v1/models', // another port
    'https://evil.test/?https://gw.example.com',
    'file:///etc/passwd',
    'not a url',
  ]) {
    assert.throws(
      () =>
        admitRequest(
          {
            url,
            headers: {},
            credential: { secret: SECRET, scheme: 'bearer', scope },
            addressFrom: './.claude/settings.json',
          },
          {},
        ),
      (e: GatewayError) =>
        isGatewayError(e) &&
        e.detail === 'credential_elsewhere' &&
        e.notSent &&
        /Refused to send the token of production to .* \(named in \.\/\.claude\/settings\.json\)/.test(e.message) &&
        !e.message.includes(SECRET),
      url,
    );
  }
  // Only the gate sets a credential header: one set by a caller is a defect, refused whatever the address.
  assert.throws(
    () => admitRequest({ url: 'https://gw.example.com/v1/models', headers: { Authorization: `Bearer ${SECRET}` } }, {}),
    /outside the credential gate/,
  );
  // A request without a credential goes anywhere (a CDN download), with nothing attached.
  assert.deepEqual(admitRequest({ url: 'https://cdn.example.net/x.png', headers: {} }, {}).headers, {});
  assert.equal(originOf('ftp://x/y'), undefined);
});

test('sendOnce refuses before a byte is sent: the other address sees no request at all', async () => {
  const agent = new Agent();
  try {
    const scope = new CredentialScope('production', [sim.url]);
    const before = away.seen.length;
    await assert.rejects(
      sendOnce({
        url: `${away.url}/v1/chat/completions`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
        credential: { secret: SECRET, scheme: 'bearer', scope },
        addressFrom: 'a test',
        dispatcher: agent,
        timeoutMs: 2000,
        context: {},
      }),
      (e: GatewayError) => e.detail === 'credential_elsewhere',
    );
    assert.equal(away.seen.length, before, 'no connection, no request');
    // The same door to the gateway itself carries the token.
    const a = await sendOnce({
      url: `${sim.url}/v1/models`,
      method: 'GET',
      headers: {},
      credential: { secret: sim.tokens.production, scheme: 'bearer', scope },
      dispatcher: agent,
      timeoutMs: 5000,
      context: {},
    });
    await a.body.text();
    a.release();
    assert.equal(a.status, 200);
  } finally {
    await agent.close();
  }
});

test("a repository's tool file that names another address gets no request and no token (reproduction of issue 36)", async () => {
  const target: ProbeTarget = {
    tool: 'claude-code',
    baseUrl: {
      value: away.url,
      from: {
        kind: 'file',
        where: '/repo/.claude/settings.json',
        key: 'env.ANTHROPIC_BASE_URL',
        projectPath: './.claude/settings.json',
      },
    },
    credential: {
      value: sim.tokens.production,
      header: 'authorization',
      from: { kind: 'terminal', where: 'terminal environment', key: 'ANTHROPIC_AUTH_TOKEN' },
    },
    model: { value: 'claude-sonnet-4-5', from: { kind: 'default', where: 'gateway' } },
  };
  const client = new GatewayClient({ gatewayName: 'production', baseUrl: sim.url, token: () => sim.tokens.production });
  const records: unknown[] = [];
  const direct = await probeTool(target, { scope: client.credentialScope, onRequest: (r) => records.push(r) });
  // the client's probe uses the client's own scope, whatever a caller passes
  const viaClient = await client.probeTool(target, { scope: new CredentialScope('x', [away.url]) } as never);
  for (const p of [direct, viaClient]) {
    assert.equal(p.ok, false);
    assert.equal(p.sent, false);
    assert.deepEqual(probeLines(p), ['Probe: POST /v1/messages?beta=true was not sent.']);
    assert.match(
      p.cause ?? '',
      /Claude Code would send your token to http:\/\/127\.0\.0\.1:\d+ \(named in \.\/\.claude\/settings\.json, a project file\)/,
    );
    assert.match(p.cause ?? '', /not an address of production/);
    assert.match(p.fix ?? '', /Remove ANTHROPIC_BASE_URL from \/repo\/\.claude\/settings\.json/);
    assert.ok(!JSON.stringify(p).includes(sim.tokens.production));
  }
  assert.equal(away.seen.length, 0, 'elsewhere saw nothing');
  assert.equal(away.sawCredential(sim.tokens.production), false);
  assert.equal(records.length, 0, 'nothing was sent, so nothing is in the request log');
});

test('the gateway client: every request carries its token only to its base and backups', async () => {
  const seen = sim.log.length;
  const client = new GatewayClient({
    gatewayName: 'production',
    baseUrl: sim.url,
    backupUrls: [away.url],
    token: () => sim.tokens.production,
  });
  // the backup is the user's own configuration: the token may go there (this is the rule, not an exception)
  assert.deepEqual(client.credentialScope.origins, [originOf(sim.url), originOf(away.url)]);
  await client.listModels();
  assert.ok(sim.log.length > seen);
  client.configure({ backupUrls: [] });
  assert.deepEqual(client.credentialScope.origins, [originOf(sim.url)], 'a removed backup leaves the scope at once');
});

test('nothing but the gate spells a credential header, and only the one door reaches undici', () => {
  const grep = (pattern: string, ...paths: string[]) => {
    try {
      return execFileSync('git', ['grep', '--untracked', '-nE', pattern, '--', ...paths], { encoding: 'utf8' })
        .split('\n')
        .filter(Boolean);
    } catch {
      return []; // git grep exits 1 when nothing matches
    }
  };
  const setting = [
    String.raw`\[['"](authorization|x-api-key|x-goog-api-key|api-key)['"]\][[:space:]]*=`, // h['x-api-key'] = …
    String.raw`(^[[:space:]]*|[{,][[:space:]]*)['"]?(authorization|x-api-key|x-goog-api-key)['"]?[[:space:]]*:[[:space:]]*[\`'"]`, // { authorization: '…' }
    String.raw`Bearer \$\{`,
  ].join('|');
  assert.deepEqual(
    grep(setting, 'src').filter((l) => !l.startsWith('src/gateway/http/egress.ts:')),
    [],
    'a credential header is set outside src/gateway/http/egress.ts',
  );
  assert.deepEqual(
    grep("\\brequest\\b[^;]*from 'undici'|(await|return|=|\\(|globalThis\\.)[[:space:]]*fetch\\(", 'src').filter(
      (l) => !l.startsWith('src/gateway/http/attempt.ts:'),
    ),
    [],
    "undici's request() (or fetch) is reached outside sendOnce",
  );
  assert.deepEqual(
    grep('\\badmitRequest\\(', 'src').filter(
      (l) => !l.startsWith('src/gateway/http/attempt.ts:') && !l.startsWith('src/gateway/http/egress.ts:'),
    ),
    [],
  );
});
