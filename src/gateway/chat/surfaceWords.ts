/**
 * The three surfaces in words, one place for every view (the chat panel, VS Code's model details,
 * the Status view, relay-doctor, Diagnose): a short name ("compatible", "native", "responses") and a
 * title that says what each calls ("Compatible (chat completions)", "Native (messages)", "Responses
 * (Responses API)"). Made when needed, in the display language.
 */
import type { Surface } from '../errors/gatewayError';
import { t } from '../l10n';

/** Every surface, in the order views list them. */
export const SURFACES: readonly Surface[] = ['compatible', 'native', 'responses'];

/** The short name: "compatible", "native", "responses". */
export function surfaceName(s: Surface): string {
  switch (s) {
    case 'compatible':
      return t('compatible');
    case 'native':
      return t('native');
    case 'responses':
      return t('responses');
  }
}

/** The title, naming what it calls: "Compatible (chat completions)", "Native (messages)", "Responses (Responses API)". */
export function surfaceTitle(s: Surface): string {
  switch (s) {
    case 'compatible':
      return t('Compatible (chat completions)');
    case 'native':
      return t('Native (messages)');
    case 'responses':
      return t('Responses (Responses API)');
  }
}
