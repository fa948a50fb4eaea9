import { renderSls } from '../../src/render/index.js';

/** The renderer golden cases compile with: the real one, so positions are checked too. */
export const goldenRender = renderSls;
