/**
 * The simulator's demo replies (`replies: 'demo'`, on for `npm run sim` and `npm start`): instead of
 * the bare echo the tests rely on, a short markdown answer that shows what the chat panel renders —
 * a heading, bold, a bullet list, a table and a fenced code block (Copy / Insert) — quoting the
 * prompt, in its language (mainly Chinese → Chinese, otherwise English). Its pieces are streamed as
 * token-sized deltas (~4 characters of English, ~1.5 Chinese characters each), so the usage the
 * simulator reports is consistent with the text's length.
 */

export type DemoLanguage = 'en' | 'zh';
export interface DemoContext {
  model: string;
  native: boolean;
  /** answered on /v1/responses */
  responses?: boolean | undefined;
}

const HAN = /\p{Script=Han}/gu;

/** The prompt without fenced or inline code (a selection's code says nothing about the asker's language). */
const proseOf = (prompt: string) => prompt.replace(/```[\s\S]*?(?:```|$)/g, ' ').replace(/`[^`\n]*`/g, ' ');

/** 'zh' when the prose is mainly Chinese: at least two Han characters per Latin word. */
export function promptLanguage(prompt: string): DemoLanguage {
  const prose = proseOf(prompt);
  const han = (prose.match(HAN) ?? []).length;
  const latinWords = (prose.match(/[A-Za-z]+/g) ?? []).length;
  return han > 0 && han >= 2 * latinWords ? 'zh' : 'en';
}

/** The prompt's first line of prose, shortened, with markdown's special characters dropped. */
export function quoteOf(prompt: string, max: number): string {
  const line =
    proseOf(prompt)
      .split('\n')
      .map((l) =>
        l
          .replace(/[*_`|#<>[\]\\]/g, '')
          .replace(/\s+/g, ' ')
          .trim(),
      )
      .find(Boolean) ?? '';
  const chars = [...line];
  return chars.length > max ? `${chars.slice(0, max).join('').trimEnd()}…` : line;
}

function snippet(ctx: DemoContext): string {
  if (ctx.responses) {
    return [
      '```ts',
      "import OpenAI from 'openai';",
      '',
      "const client = new OpenAI({ baseURL: 'http://127.0.0.1:8787/v1', apiKey: process.env.RELAY_TOKEN });",
      `const res = await client.responses.create({ model: '${ctx.model}', input: 'Hello', store: false });`,
      'console.log(res.output_text);',
      '```',
    ].join('\n');
  }
  if (ctx.native) {
    return [
      '```ts',
      "import Anthropic from '@anthropic-ai/sdk';",
      '',
      "const client = new Anthropic({ baseURL: 'http://127.0.0.1:8787', apiKey: process.env.RELAY_TOKEN });",
      `const msg = await client.messages.create({ model: '${ctx.model}', max_tokens: 1024, messages: [{ role: 'user', content: 'Hello' }] });`,
      'console.log(msg.content);',
      '```',
    ].join('\n');
  }
  return [
    '```ts',
    "import OpenAI from 'openai';",
    '',
    "const client = new OpenAI({ baseURL: 'http://127.0.0.1:8787/v1', apiKey: process.env.RELAY_TOKEN });",
    `const stream = await client.chat.completions.create({ model: '${ctx.model}', stream: true, messages: [{ role: 'user', content: 'Hello' }] });`,
    "for await (const chunk of stream) process.stdout.write(chunk.choices[0]?.delta?.content ?? '');",
    '```',
  ].join('\n');
}

function english(prompt: string, ctx: DemoContext): string {
  const quote = quoteOf(prompt, 60) || '(no text)';
  const surface = ctx.responses
    ? 'OpenAI Responses API `/v1/responses`'
    : ctx.native
      ? 'Anthropic-native `/v1/messages`'
      : 'OpenAI-compatible `/v1/chat/completions`';
  return [
    '### A demo answer from the gateway simulator',
    '',
    `**You asked:** “${quote}”`,
    '',
    `This is \`npm start\`'s simulator answering through the ${surface} surface with **${ctx.model}**, so nothing left your machine. Here is what the chat panel can show:`,
    '',
    '- **Streaming**: the reply arrives token by token, as from a real gateway.',
    '- **Markdown**: headings, lists, tables and code, rendered safely.',
    '- **Code blocks** with *Copy* and *Insert* buttons (try them on the block below).',
    '- **Usage**: the line under the reply shows the tokens the gateway reported.',
    '',
    '| Surface | Endpoint | Try it with |',
    '| --- | --- | --- |',
    '| OpenAI-compatible | `/v1/chat/completions` | gpt-4o-mini |',
    '| Anthropic-native | `/v1/messages` | claude-sonnet-4-5 |',
    '| OpenAI Responses | `/v1/responses` | gpt-5.5-codex |',
    '',
    snippet(ctx),
    '',
    'Point **Model Relay: Configure Base URL** at your own gateway and add its token to get real answers.',
  ].join('\n');
}

function chinese(prompt: string, ctx: DemoContext): string {
  const quote = quoteOf(prompt, 30) || '（无文字）';
  const surface = ctx.responses
    ? 'OpenAI Responses API 接口 `/v1/responses`'
    : ctx.native
      ? 'Anthropic 原生接口 `/v1/messages`'
      : 'OpenAI 兼容接口 `/v1/chat/completions`';
  return [
    '### 来自网关模拟器的演示回答',
    '',
    `**你的问题：**「${quote}」`,
    '',
    `这是 \`npm start\` 启动的本地模拟器，通过 ${surface} 用 **${ctx.model}** 作答，数据没有离开你的电脑。聊天面板可以显示：`,
    '',
    '- **流式输出**：回答逐个令牌到达，和真实网关一样。',
    '- **Markdown**：标题、列表、表格和代码，安全渲染。',
    '- **代码块**带有 *Copy* 和 *Insert* 按钮（可以在下面的代码块上试试）。',
    '- **用量**：回答下方一行显示网关报告的令牌数。',
    '',
    '| 接口 | 路径 | 可用模型 |',
    '| --- | --- | --- |',
    '| OpenAI 兼容 | `/v1/chat/completions` | gpt-4o-mini |',
    '| Anthropic 原生 | `/v1/messages` | claude-sonnet-4-5 |',
    '| OpenAI Responses | `/v1/responses` | gpt-5.5-codex |',
    '',
    snippet(ctx),
    '',
    '用 **Model Relay: Configure Base URL** 指向你自己的网关并添加令牌，即可获得真实回答。',
  ].join('\n');
}

/** The demo reply to `prompt` (the last user message's text), in the prompt's language. */
export function demoReply(prompt: string, ctx: DemoContext): string {
  return promptLanguage(prompt) === 'zh' ? chinese(prompt, ctx) : english(prompt, ctx);
}

const isHan = (ch: string) => /\p{Script=Han}|[\u3000-\u303f\uff00-\uffef]/u.test(ch);

/**
 * Token-sized pieces that join back to `text` exactly: a run of Chinese characters (and CJK
 * punctuation) in pieces of 1 and 2 characters by turns (~1.5 a token), anything else in pieces of
 * up to 4 characters that never cross a word boundary (~4 characters a token for English); the
 * whitespace before a piece is part of it.
 */
export function demoPieces(text: string): string[] {
  const pieces: string[] = [];
  const chars = [...text];
  let i = 0;
  let turn = 0;
  while (i < chars.length) {
    let piece = '';
    while (i < chars.length && /\s/.test(chars[i])) piece += chars[i++];
    if (i < chars.length && isHan(chars[i])) {
      const size = turn++ % 2 === 0 ? 1 : 2;
      for (let n = 0; n < size && i < chars.length && isHan(chars[i]); n++) piece += chars[i++];
    } else {
      for (let n = 0; n < 4 && i < chars.length && !/\s/.test(chars[i]) && !isHan(chars[i]); n++) piece += chars[i++];
    }
    if (piece) pieces.push(piece);
  }
  return pieces.length ? pieces : [''];
}

/** A token estimate for any text, by the same rule as the pieces (prompt usage in demo mode). */
export const demoTokens = (text: string): number => (text.trim() ? demoPieces(text).length : 0);

/** Milliseconds between streamed events in demo mode, so the answer visibly streams. */
export const DEMO_PACE_MS = 12;

/**
 * The reply to a commit-message request (Model Relay's Generate Commit Message: "Write the commit
 * message for the change below", the repository's style, a `<diff>`): a one-line subject in that
 * style — a Conventional Commits type (and scope) where the style asks for one, the language, the
 * capitalisation and the closing period it names — saying what the diff does to which file. Undefined
 * for any other prompt. Used in every replies mode: the echo of a diff would be no commit message.
 */
export function commitMessageReply(prompt: string): string | undefined {
  if (!/commit message/i.test(prompt) || !/^diff --git /m.test(prompt)) return undefined;
  const style = /^Style: (.*)$/m.exec(prompt)?.[1] ?? '';
  const files = [...prompt.matchAll(/^diff --git (?:"?a\/)?(.+?)"? (?:"?b\/)(.+?)"?$/gm)].map((m) => m[2]);
  const added = (prompt.match(/^new file mode/gm) ?? []).length;
  const deleted = (prompt.match(/^deleted file mode/gm) ?? []).length;
  const first = files[0] ?? 'files';
  const name = first.split('/').pop() ?? first;
  const zh = /write in Chinese/.test(style);
  const kind = added === files.length ? 'add' : deleted === files.length ? 'remove' : 'update';
  const more = files.length - 1;
  const what = zh
    ? `${{ add: '新增', remove: '删除', update: '更新' }[kind]} ${name}${more ? ` 等 ${files.length} 个文件` : ''}`
    : `${kind} ${name}${more ? ` and ${more} more file${more > 1 ? 's' : ''}` : ''}`;
  let subject = /start the description with a capital letter/.test(style)
    ? what[0].toUpperCase() + what.slice(1)
    : what;
  if (/end the subject with a period/.test(style)) subject += zh ? '。' : '.';
  if (!/Conventional Commits/.test(style)) return subject;
  const types = /types used here: ([a-z, ]+)\)/.exec(style)?.[1].split(', ') ?? [];
  const type = files.every((f) => /\.md$/i.test(f)) ? 'docs' : kind === 'add' ? 'feat' : (types[0] ?? 'chore');
  const scope = /type\(scope\)/.test(style)
    ? `(${first.includes('/') ? first.split('/')[0] : name.replace(/\.[^.]+$/, '')})`
    : '';
  return `${type}${scope}: ${subject}`;
}
