/**
 * Whether VS Code's own chat still needs setting up before it answers with our models. On a fresh
 * profile without a GitHub Copilot sign-in, VS Code disables its built-in chat extension until chat
 * setup completes ("Disabling builtin chat extension as chat set up is not completed"); the Chat view
 * then lists our models but its first prompt asks for a sign-in, because models an extension provides
 * do not count as bring-your-own-key models there (only `chatLanguageModels.json` provider groups do:
 * `github.copilot.hasByokModels`). No contribution field changes that (VS Code 1.139's workbench
 * source): **Chat: Manage Language Models** (`workbench.action.chat.manage`) is what enables the
 * built-in chat extension, once, before opening the Language Models editor; agent mode then answers
 * with our models and runs VS Code's tools (shared/reference/vscode-chat-settings.md §8). So the
 * state is detected and that command offered (walkthrough, Status view, Check Gateway Models).
 * Plain Node, no `vscode`: src/extension/lm/chatSetup.ts gathers the facts.
 */

/** VS Code's command that enables the built-in chat extension and opens the Language Models editor. */
export const MANAGE_LANGUAGE_MODELS = 'workbench.action.chat.manage';
/** The built-in chat extension (product.json `defaultChatAgent.chatExtensionId`). */
export const BUILTIN_CHAT_EXTENSION = 'GitHub.copilot-chat';
/** The vendor of Copilot's own models. */
export const COPILOT_VENDOR = 'copilot';

export interface ChatSetupFacts {
  /** this VS Code has Chat: Manage Language Models */
  manageCommand: boolean;
  /** the built-in chat extension is enabled (vscode.extensions.getExtension finds it; a disabled one is not there) */
  chatExtensionEnabled: boolean;
  /** chat.disableAIFeatures: the user turned VS Code's AI features off on purpose */
  aiFeaturesDisabled: boolean;
  /** our languageModelChatProviders vendor */
  vendor: string;
  /** the vendor of every chat model VS Code lists now */
  vendors: readonly string[];
}

/**
 * True when VS Code's chat lists our models but cannot answer with them yet: the built-in chat
 * extension is not running, no Copilot model is there (no completed setup), AI features are not
 * turned off, and the command that enables it exists.
 */
export function chatNeedsEnabling(f: ChatSetupFacts): boolean {
  return (
    f.manageCommand &&
    !f.aiFeaturesDisabled &&
    !f.chatExtensionEnabled &&
    f.vendors.includes(f.vendor) &&
    !f.vendors.includes(COPILOT_VENDOR)
  );
}
