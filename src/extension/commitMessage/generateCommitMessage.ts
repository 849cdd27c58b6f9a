/**
 * "Model Relay: Generate Commit Message" — the sparkle in the Source Control title (a stable menu; the
 * input box's own `scm/inputBox` menu is a proposal VS Code refuses, with an error, to any extension
 * not allowed it, so it is not contributed): reads the repository's staged diff (all changes when nothing is staged) and its last
 * ten commit messages through the Git extension, and streams the message into the input box behind a
 * cancellable notification. The request, the style, the budget and what happens to the box's text
 * are src/host/commitMessage/; this file talks to Git and VS Code.
 */
import * as vscode from 'vscode';
import { CommandId } from '../../host/commandIds';
import { withAbort } from '../../host/cancellation';
import { PathExclusions } from '../../host/pathExclusions';
import { budgetDiff, cutWords, type BudgetedDiff } from '../../host/commitMessage/diffBudget';
import { detectStyle } from '../../host/commitMessage/commitStyle';
import {
  commitModel,
  commitPrompt,
  commitRequest,
  commitSurface,
  noModelWords,
  type CommitPromptInput,
} from '../../host/commitMessage/commitPrompt';
import { streamMessage, type StreamOutcome } from '../../host/commitMessage/streamMessage';
import { showGatewayError } from '../errorPresenter';
import type { GatewayService } from '../gateways/gatewayService';
import type { Registrar } from '../lazy/registrar';
import { pickRepository, UNTRACKED, type GitRepository } from './gitRepository';

/** Set while a message is being written: the button is disabled meanwhile. */
const GENERATING_KEY = 'modelRelay.generatingCommitMessage';
const RECENT_COMMITS = 10;

/** The change to describe: staged, else everything; undefined when there is nothing. */
async function changeOf(
  repo: GitRepository,
  exclusions: PathExclusions,
): Promise<Omit<CommitPromptInput, 'style' | 'draft'> | undefined> {
  const staged = await repo.diff(true);
  if (staged.trim()) return { diff: budgetDiff(staged, exclusions), scope: 'staged' };
  const all = await repo.diff();
  const untracked = [...repo.state.workingTreeChanges, ...(repo.state.untrackedChanges ?? [])]
    .filter((c) => c.status === UNTRACKED)
    .map((c) => vscode.workspace.asRelativePath(c.uri, false));
  if (!all.trim() && !untracked.length) return undefined;
  return { diff: budgetDiff(all, exclusions), scope: 'all', untracked: [...new Set(untracked)] };
}

/** The last few commit messages (none in a repository without commits: `git log` fails there). */
async function recentMessages(repo: GitRepository): Promise<string[]> {
  const commits = await repo.log({ maxEntries: RECENT_COMMITS }).catch(() => []);
  return commits.map((c) => c.message);
}

export class CommitMessageCommand {
  private running = false;

  constructor(
    private readonly service: GatewayService,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** One run at a time (the button is disabled meanwhile; a second call from elsewhere is ignored). */
  async run(arg: unknown): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      await this.generate(arg);
    } catch (e) {
      await showGatewayError(vscode.l10n.t('Generate Commit Message'), e, this.service);
    } finally {
      this.running = false;
    }
  }

  private async generate(arg: unknown): Promise<void> {
    const repo = await pickRepository(arg);
    if (typeof repo === 'string') {
      void vscode.window.showWarningMessage(repo);
      return;
    }
    const s = this.service.current;
    const chosen = commitModel({
      commitMessage: s.commitMessage.model,
      completions: s.models.completion,
      chat: s.models.chat,
      native: s.models.native,
      defaultSurface: s.defaultSurface,
    });
    if (!chosen) {
      const open = vscode.l10n.t('Open Settings');
      if ((await vscode.window.showWarningMessage(noModelWords(), open)) === open)
        await vscode.commands.executeCommand('workbench.action.openSettings', 'modelRelay.commitMessage.model');
      return;
    }
    const change = await changeOf(repo, new PathExclusions(s.completions.exclude));
    if (!change) {
      void vscode.window.showInformationMessage(
        vscode.l10n.t('Model Relay: there are no changes to describe. Change or stage a file first.'),
      );
      return;
    }
    // From the palette the box may be out of sight: show it, so the message is seen arriving.
    if (!arg) void vscode.commands.executeCommand('workbench.view.scm');
    const input: CommitPromptInput = {
      ...change,
      style: detectStyle(await recentMessages(repo)),
      draft: repo.inputBox.value,
    };
    await vscode.commands.executeCommand('setContext', GENERATING_KEY, true);
    try {
      this.tell(await this.write(repo, chosen.model, input), chosen.model, input.diff);
    } finally {
      await vscode.commands.executeCommand('setContext', GENERATING_KEY, false);
    }
  }

  /** One streamed request behind a notification whose Cancel aborts it. */
  private write(repo: GitRepository, model: string, input: CommitPromptInput): Thenable<StreamOutcome> {
    const client = this.service.client;
    const s = this.service.current;
    return vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: vscode.l10n.t('Model Relay: writing the commit message with {0}…', model),
        cancellable: true,
      },
      (progress, token) =>
        withAbort(token, async (signal) => {
          const cut = cutWords(input.diff.cut);
          if (cut.length) progress.report({ message: cut.join(' ') });
          // The surface comes from the gateway's model list: read once if this session has not yet.
          if (client.capabilitiesOf(model) === undefined) await client.listModels(signal).catch(() => undefined);
          const surface = commitSurface(
            model,
            { defaultSurface: s.defaultSurface, nativeModel: s.models.native, overrides: s.modelOverrides },
            client.capabilitiesOf(model),
            client.learntSurface(model),
          );
          const sink = {
            get: () => repo.inputBox.value,
            set: (text: string) => (repo.inputBox.value = text),
          };
          return streamMessage(client, commitRequest(model, surface, commitPrompt(input), signal), sink, signal);
        }),
    );
  }

  private tell(outcome: StreamOutcome, model: string, diff: BudgetedDiff): void {
    const cut = cutWords(diff.cut);
    if (outcome.kind === 'done')
      this.log.info(
        vscode.l10n.t(
          'Commit message written by {0} from {1} files (about {2} tokens of diff).',
          model,
          diff.cut.files,
          diff.cut.tokens,
        ),
      );
    for (const line of cut) this.log.info(line);
    if (outcome.kind === 'empty')
      void vscode.window.showWarningMessage(
        vscode.l10n.t(
          'Model Relay: {0} answered no commit message; the input box is as it was. Try again, or set modelRelay.commitMessage.model to another model.',
          model,
        ),
      );
    if (outcome.kind === 'user-edited')
      this.log.info(vscode.l10n.t('Commit message stopped: the input box was edited while it was being written.'));
  }
}

export function registerCommitMessage(
  context: vscode.ExtensionContext,
  hub: Registrar,
  service: GatewayService,
  log: vscode.LogOutputChannel,
): void {
  const command = new CommitMessageCommand(service, log);
  context.subscriptions.push(hub.command(CommandId.GenerateCommitMessage, (arg) => command.run(arg)));
}
