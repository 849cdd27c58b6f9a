/** The tokenizer bundle (dist/tokenizer.js), loaded on the first token count: o200k's count. */
import type * as O200k from 'gpt-tokenizer/cjs/encoding/o200k_base';

// The package exports its CommonJS build under the "require" condition only.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const o200k = require('gpt-tokenizer/cjs/encoding/o200k_base') as typeof O200k;
/** Special tokens' text (`<|endoftext|>` in a pasted document) is counted as text, as the API does, never refused. */
const literal = { disallowedSpecial: new Set<string>() };

export const countTokens = (text: string): number => o200k.countTokens(text, literal);
