import { yamlOnlyRender } from './yaml-only-render.js';

/** The renderer golden cases compile with. */
export const goldenRender = yamlOnlyRender;
