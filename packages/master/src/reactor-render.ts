import { memoryTree, renderSls, type RenderInput, type RenderOutput } from '@brine/compiler';
import { errorLines } from '@brine/core';

/** A reactor SLS to render: its text (read by the master), and the event it reacts to. */
export interface ReactorRenderTask {
  file: string;
  text: string;
  tag: string;
  data: unknown;
}

/** The rendered reactor file: its high data, the line of each ID, or the errors (file:line: ...). */
export interface ReactorRenderResult {
  high?: Record<string, unknown>;
  lines: Record<string, number>;
  errors: string[];
}

/**
 * Renders one reactor file with Salt's reactor context (`tag`, `data`; no grains or pillar of a
 * minion). Runs on a compile worker: the file is untrusted template code like any SLS. The file
 * is the only one its tree holds, so an import of another file fails the render.
 */
export function renderReactor(task: ReactorRenderTask, render: (input: RenderInput) => RenderOutput = renderSls): ReactorRenderResult {
  const tree = memoryTree({ base: { [task.file]: task.text } });
  const out = render({
    tree,
    env: 'base',
    path: task.file,
    text: task.text,
    context: { grains: {}, pillar: {}, params: {}, extra: { tag: task.tag, data: task.data } },
  });
  const lines = Object.fromEntries(Object.entries(out.positions.ids).map(([id, p]) => [id, p.pos.line]));
  const errors = errorLines(out.diagnostics);
  if (errors.length > 0 || !out.high) return { lines, errors: errors.length ? errors : [`${task.file}: the file rendered to nothing`] };
  return { high: out.high as Record<string, unknown>, lines, errors: [] };
}
