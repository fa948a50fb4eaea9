import { defineErrors } from '@brine/core';

/** The states package's coded errors. A failing state is not one of these: it returns result false. */
export const statesErrors = defineErrors({
  BRINE_ERR_STATES_BAD_URL: "'{url}' is not a salt:// URL",
  BRINE_ERR_STATES_PATH_ESCAPE: "'{url}' points outside the file root of env '{env}'",
  BRINE_ERR_STATES_UNKNOWN_ENV: "no file roots for env '{env}'",
  BRINE_ERR_STATES_DUPLICATE_MODULE: "state module '{name}' is registered twice",
  BRINE_ERR_STATES_CUSTOM_MODULE: '{file}: {detail}',
  BRINE_ERR_STATES_TEMPLATE_FUNCTION: "'{fun}' is not available to templates on this host",
  BRINE_ERR_STATES_TEMPLATE_ROUNDS: 'template {source} still asks for files or host calls after {rounds} rounds',
  BRINE_ERR_STATES_NOT_LOADED: "state module '{name}' is known by its signatures only: its code was not loaded for this run",
});
