/**
 * What the diagnosis panel and the image preview may post back, validated with zod at the boundary
 * (the chat view's messages are in src/shared/chatProtocol.ts). Anything else is ignored.
 */
import { z } from 'zod';

const diagnoseMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('fix'), index: z.number().int().min(0).max(1000) }),
  z.object({ type: z.literal('copy') }),
  z.object({ type: z.literal('rerun') }),
  z.object({ type: z.literal('rerunMedia') }),
  z.object({ type: z.literal('supportReport') }),
]);
export type DiagnosePanelMessage = z.infer<typeof diagnoseMessage>;

const previewMessage = z.object({ type: z.enum(['saveAs', 'copyPath', 'insertLink']) });
export type PreviewPanelMessage = z.infer<typeof previewMessage>;

export function parseDiagnoseMessage(raw: unknown): DiagnosePanelMessage | undefined {
  const r = diagnoseMessage.safeParse(raw);
  return r.success ? r.data : undefined;
}

export function parsePreviewMessage(raw: unknown): PreviewPanelMessage | undefined {
  const r = previewMessage.safeParse(raw);
  return r.success ? r.data : undefined;
}
