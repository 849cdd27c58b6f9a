/**
 * `npm run sim`: the gateway simulator on 127.0.0.1, for trying the extension offline. Chat answers are
 * the demo replies (markdown in the prompt's language, demo.ts) unless `--replies echo`.
 */
import { parseArgs } from 'node:util';
import { startSimulator, type Profile } from './server';
import type { GatewayFlavor } from './economy';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      profile: { type: 'string' },
      hosts: { type: 'string' },
      gateway: { type: 'string' },
      replies: { type: 'string' },
    },
  });
  const port = Number(values.port ?? process.env.SIM_PORT ?? 8787);
  const profile = (values.profile ?? 'strict') as Profile;
  if (profile !== 'strict' && profile !== 'real') throw new Error('--profile must be strict or real');
  const gateway = (values.gateway ?? 'new-api') as GatewayFlavor;
  if (!['new-api', 'new-api-2025', 'one-api'].includes(gateway))
    throw new Error('--gateway must be new-api, new-api-2025 or one-api');
  const replies = values.replies ?? 'demo';
  if (replies !== 'demo' && replies !== 'echo') throw new Error('--replies must be demo or echo');
  const sim = await startSimulator({ port, profile, gateway, replies, hosts: Number(values.hosts ?? 1) });
  const lines = [
    `Model Relay gateway simulator (${profile} profile${profile === 'real' ? `, ${gateway}` : ''}, ${replies} replies)`,
    `  base URL (root):     ${sim.url}`,
    `  compatible surface:  ${sim.url}/v1`,
    `  native surface:      ${sim.url}   (clients append /v1/messages)`,
    `  responses surface:   ${sim.url}/v1   (clients append /responses)`,
    ...(sim.urls.length > 1 ? [`  backup hosts:        ${sim.urls.slice(1).join(', ')}`] : []),
    '',
    '  demo tokens:',
    ...sim.config.tokens.map(
      (t) => `    ${t.name.padEnd(11)} ${t.value}  (group ${t.group}${t.disabled ? ', disabled' : ''})`,
    ),
    '',
    '  try:',
    `    curl -s ${sim.url}/v1/chat/completions -H "Authorization: Bearer ${sim.tokens.production}" -H "Content-Type: application/json" -d '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hello"}]}'`,
    `    curl -sN ${sim.url}/v1/messages -H "x-api-key: ${sim.tokens.production}" -H "native-version: 2023-06-01" -H "Content-Type: application/json" -d '{"model":"claude-sonnet-4-5","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"hello"}]}'`,
    `    curl -s ${sim.url}/v1/completions -H "Authorization: Bearer ${sim.tokens.production}" -H "Content-Type: application/json" -d '{"model":"deepseek-chat","prompt":"def fib(a):\\n    ","suffix":"\\n    return fib(a-1) + fib(a-2)","max_tokens":64,"stop":["\\n\\n"]}'`,
    ...(profile === 'real'
      ? [`    curl -s ${sim.url}/api/usage/token/ -H "Authorization: Bearer ${sim.tokens.production}"`]
      : []),
    '',
    `  replies: PUT ${sim.url}/__sim/config '{"replies":"echo"}' (or "demo")`,
    `  completions: PUT ${sim.url}/__sim/config '{"completions":{"latencyMs":150}}' · GET /__sim/completions (requests, aborted…)`,
    `  faults: POST ${sim.url}/__sim/faults '{"kind":"status","status":503,"count":2}' · DELETE /__sim/faults · GET /__sim/log`,
    `  usage log (real profile): PUT ${sim.url}/__sim/config '{"usageLog":{"delayMs":1500,"errorLog":true,"vintage":"NA25"}}' (NA26 · NA25 · NA24)`,
    `  a dishonest gateway: PUT ${sim.url}/__sim/config '{"dishonest":{"overcharge":{"factor":1.5,"recorded":"charged"}}}'`,
    '    (also inflatePrompt {share, inResponse} · mapModels · hiddenMapModels {requested: served} · forward · systemPromptTokens; {} is honest)',
    '  Ctrl-C stops it.',
  ];
  console.log(lines.join('\n'));
  const stop = () => {
    void sim.close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
