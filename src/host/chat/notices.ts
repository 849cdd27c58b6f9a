/** The notices a chat reply can carry (in the display language), and when a failed stream offers a plain (non-streamed) retry. Plain Node. */
import { failoverReason, type FailoverEvent, type GatewayError } from '../../gateway';
import { t } from '../../gateway/l10n';
import type { ChatEntry, ChatNotice } from '../../shared/chatProtocol';

export function bufferingNotice(): string {
  return t(
    'This reply arrived in one burst at the end instead of streaming: a proxy between you and the gateway buffers responses. Turning streaming off gives the same replies without the long wait for a stream that never flows.',
  );
}

export function streamIgnoredNotice(): string {
  return t('The gateway answered in one piece although a stream was requested; the reply is complete.');
}

/** The line a failover adds to the reply: both gateways (and models) and why the first could not serve it. */
export function failoverNotice(ev: FailoverEvent): string {
  return t(
    'Gateway "{0}" ({1}) could not serve this request ({2}), so gateway "{3}" ({4}) was asked instead.',
    ev.from.gatewayName,
    ev.from.model,
    failoverReason(ev.error),
    ev.to.gatewayName,
    ev.to.model,
  );
}

export function addNotice(entry: ChatEntry, n: ChatNotice): void {
  (entry.notices ??= []).push(n);
}

/** Stream failures worth offering one non-streamed try: the request was accepted, the stream did not work. */
export function offersPlainRetry(e: GatewayError): boolean {
  return e.kind === 'stream_interrupted' || e.kind === 'protocol';
}
