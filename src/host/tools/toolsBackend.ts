/**
 * Set Up Tools…' ToolsBackend over the core (src/gateway/tools): the tools' states, plans and writes
 * in the environment a new terminal gets, and each probe through a gateway client — whose credential
 * gate sends a tool's request only to that gateway's own origins (a project file naming another
 * address gets no request, and the probe says so). No `vscode` here: the extension hands in the
 * environment (re-read at each call, so a trust grant counts at once) and the client.
 */
import {
  applyEdits,
  planFixOverride,
  planRemove,
  planSetUp,
  toolStatuses,
  type ToolGateway,
  type ToolsEnvironment,
} from '../../gateway/tools';
import { probeTargetOf } from '../../gateway/tools/probeTarget';
import type { ProbeTarget, ToolProbe } from '../../gateway/tools/probes';
import type { ToolsBackend } from './setUpTools';

export interface ToolsBackendDeps {
  /**
   * the tools' environment, read anew at each call, with the folder the texts writes replace are
   * kept in (outside any repository: the extension's global storage)
   */
  environment(): ToolsEnvironment & { backupDir: string };
  gateway: ToolGateway;
  /** the token new terminals get: never written to a file */
  token: string;
  /** sends a tool's request (GatewayClient.probeTool: the client's origins, dispatcher and request log) */
  probe(target: ProbeTarget, o: { models: ToolGateway['models'] }): Promise<ToolProbe>;
}

export function coreToolsBackend(d: ToolsBackendDeps): ToolsBackend {
  const { gateway } = d;
  return {
    statuses: () => toolStatuses(d.environment(), gateway),
    planSetUp: (tool, choices) => planSetUp(tool, d.environment(), gateway, choices),
    planRemove: (tool) => planRemove(tool, d.environment(), gateway),
    planFix: (tool, override) => planFixOverride(tool, d.environment(), override),
    apply: (plan) => {
      const env = d.environment();
      return applyEdits(plan.edits, { homeDir: env.homeDir, secrets: [d.token], backupDir: env.backupDir });
    },
    probe: async (tool) => {
      const env = d.environment();
      const status = (await toolStatuses(env, gateway)).find((s) => s.tool === tool)!;
      return d.probe(await probeTargetOf(status, env.env), { models: gateway.models });
    },
  };
}
