/** The tokenizer bundle (dist/tokenizer.js), loaded on the first token count: o200k's count. */
import type * as O200k from 'gpt-tokenizer/cjs/encoding/o200k_base';

// The package exports its CommonJS build under the "require" condition only.
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const countTokens: typeof O200k.countTokens = (require('gpt-tokenizer/cjs/encoding/o200k_base') as typeof O200k)
  .countTokens;
