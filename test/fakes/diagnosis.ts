/**
 * One gateway's report (runDiagnosis, or one made by hand) as the one-row diagnosis every rendering
 * takes: the shape diagnoseGateways gives Diagnose Connection and `relay-doctor diagnose`. Its summary
 * cells are "not read" (skipped) unless given: the renderings of one gateway show its checks.
 */
import type { DiagnosisReport, GatewaySummaryRow, GatewaysDiagnosis, SummaryCell } from '../../src/gateway';

const notRead: SummaryCell = { status: 'skipped', text: 'not tested' };

export function oneGateway(
  report: DiagnosisReport,
  row: Partial<Omit<GatewaySummaryRow, 'report'>> = {},
): GatewaysDiagnosis {
  const r: GatewaySummaryRow = {
    gateway: { id: 'gw', name: 'Gateway' },
    reachability: notRead,
    token: notRead,
    balance: notRead,
    models: notRead,
    generation: notRead,
    modelIds: undefined,
    ok: report.ok,
    ...row,
    report,
  };
  return {
    startedAt: report.startedAt,
    durationMs: report.durationMs,
    rows: [r],
    fallbacks: [],
    ok: r.ok,
  };
}
