/**
 * What of a completion answer is shown, by how it ended (the core's rule, answerEnding): a whole
 * answer as it came; one cut short — by max tokens, or for a reason the gateway named — only its
 * complete lines, since a cut may fall mid-token or mid-line (nothing when the first line was not
 * finished); one a content filter stopped, nothing. Plain Node.
 */
import { answerEnding } from '../../gateway';

/** The text to suggest, or undefined when nothing of this answer is shown. */
export function shownInsertion(text: string, finishReason: string | undefined): string | undefined {
  switch (answerEnding(finishReason)) {
    case 'complete':
      return text;
    case 'filter':
      return undefined;
    case 'budget':
    case 'other': {
      const end = text.lastIndexOf('\n');
      const whole = end < 0 ? '' : text.slice(0, end).trimEnd();
      return whole.trim() ? whole : undefined;
    }
  }
}
