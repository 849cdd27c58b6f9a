/**
 * A failed reply's error card: what went wrong (HTTP status or kind), the cause and the fix, the
 * details that help (gateway message, endpoint, masked token, model, request id, billing, retries),
 * whether a failed billed call was logged (and billed) once the gateway's usage log was read, and its
 * actions (Retry Without Streaming after a failed stream, Retry (may be billed again) after a failure that may
 * have been billed, Run Diagnose, Request Log, Copy Support Report), which
 * ./chatLayout.ts's onListClick turns into messages. Words from the host (`ChatStrings`).
 */
import type { ChatErrorInfo } from '../shared/chatProtocol';
import { fill, surfaceWord, type ChatStrings } from '../shared/chatStrings';

export function errorCard(d: Document, err: ChatErrorInfo, s: ChatStrings): HTMLElement {
  const card = el(d, 'div', 'error-card');
  card.setAttribute('data-testid', 'chat-error-card');
  card.setAttribute('data-kind', err.kind);
  if (err.status !== undefined) card.setAttribute('data-http-status', String(err.status));
  card.setAttribute('role', 'alert');
  const title = el(d, 'div', 'error-title');
  title.setAttribute('data-testid', 'chat-error-status');
  // The core's message often starts with the status already ("HTTP 403 no access. …").
  const label = err.status !== undefined ? fill(s.retryHttp, err.status) : labelFor(err.kind, s);
  title.textContent = `${label} — ${err.message.replace(/^HTTP \d{3}:?\s*/, '')}`;
  card.append(title);
  card.append(
    row(d, fill(s.labelled, s.cause), err.cause, 'chat-error-cause'),
    row(d, fill(s.labelled, s.fix), err.fix, 'chat-error-fix'),
  );
  const dl = d.createElement('dl');
  const add = (k: string, v: string | undefined, testId: string) => {
    if (!v) return;
    const dt = d.createElement('dt');
    dt.textContent = k;
    const dd = d.createElement('dd');
    dd.textContent = v;
    dd.setAttribute('data-testid', testId);
    dl.append(dt, dd);
  };
  add(s.gatewaySaid, err.gatewayMessage, 'chat-error-gateway-message');
  add(s.endpoint, err.url ?? err.host, 'chat-error-endpoint');
  add(s.token, err.maskedToken, 'chat-error-token');
  add(
    s.model,
    err.model ? (err.surface ? fill(s.modelSurface, err.model, surfaceWord(err.surface, s)) : err.model) : undefined,
    'chat-error-model',
  );
  add(s.requestId, err.requestId, 'chat-error-request-id');
  add(s.billing, err.billing, 'chat-error-billing');
  add(s.loggedByGateway, err.arrival?.text, 'chat-error-arrival');
  if (err.arrival) dl.lastElementChild?.setAttribute('data-arrival', err.arrival.state);
  if (err.attempts && err.attempts > 1) add(s.retries, fill(s.retriedGaveUp, err.attempts), 'chat-error-attempts');
  add(s.stream, err.streamFailed ? fill(s.streamFailedNote, err.streamFailed) : undefined, 'chat-error-stream-failed');
  if (dl.children.length) card.append(dl);
  const actions = el(d, 'div', 'error-actions');
  if (err.streamFailed) actions.append(button(d, 'retry-without-streaming', 'chat-error-retry-plain', s.retryPlain));
  // A call that may have been billed was not sent again: asking again is the user's choice, said on the button.
  else if (err.billing) actions.append(button(d, 'retry-billed', 'chat-error-retry-billed', s.retryBilled));
  actions.append(
    button(d, 'diagnose', 'chat-error-diagnose', s.runDiagnose),
    button(d, 'show-log', 'chat-error-show-log', s.requestLog),
    button(d, 'support-report', 'chat-error-support-report', s.copySupportReport),
  );
  card.append(actions);
  return card;
}

function button(d: Document, action: string, testId: string, label: string): HTMLButtonElement {
  const b = d.createElement('button');
  b.type = 'button';
  b.setAttribute('data-action', action);
  b.setAttribute('data-testid', testId);
  b.textContent = label;
  return b;
}

function el(d: Document, tag: string, className: string): HTMLElement {
  const e = d.createElement(tag);
  e.className = className;
  return e;
}

function row(d: Document, label: string, text: string, testId: string): HTMLElement {
  const p = el(d, 'div', 'error-row');
  p.setAttribute('data-testid', testId);
  const b = d.createElement('strong');
  b.textContent = label;
  p.append(b, d.createTextNode(text));
  return p;
}

function labelFor(kind: ChatErrorInfo['kind'], s: ChatStrings): string {
  const labels: Record<string, string> = {
    network: s.kindNetwork,
    timeout: s.kindTimeout,
    protocol: s.kindProtocol,
    stream_interrupted: s.kindStream,
    bad_request: s.kindBadRequest,
    internal: s.kindError,
  };
  return labels[kind] ?? kind;
}
