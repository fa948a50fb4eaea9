/**
 * Master-side runners (Salt's `salt-run`): one interface shared by the API route, the reactor's
 * `runner.*` reactions and the master-side schedule, so none of them imports the orchestrate
 * package. The master wires the runners it has (`state.orchestrate`, alias `state.orch`).
 */
export interface RunnerRequest {
  fun: string;
  arg: unknown[];
  kwarg: Record<string, unknown>;
  user: string;
}

export interface RunnerOutcome {
  jid: string;
  success: boolean;
  ret: unknown;
}

export type RunRunner = (req: RunnerRequest) => Promise<RunnerOutcome>;
