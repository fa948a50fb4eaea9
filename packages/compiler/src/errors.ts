import { defineErrors } from '@brine/core';

/** Every error the compiler reports, by code. Messages name the file, SLS and ID where known. */
export const compilerErrors = defineErrors({
  BRINE_ERR_COMPILE_YAML: 'bad YAML: {detail}',
  BRINE_ERR_COMPILE_TEMPLATE: 'template error: {detail}',
  BRINE_ERR_COMPILE_RENDER_TIMEOUT: '{file}: {detail}; this compile stops here (render_timeout in the master config)',
  BRINE_ERR_COMPILE_NOT_A_DICT: 'SLS {sls} does not render to a dictionary (got {got})',
  BRINE_ERR_COMPILE_SLS_NOT_FOUND: "no SLS '{sls}' in environment '{env}'{from}",
  BRINE_ERR_COMPILE_INCLUDE_BEYOND_TOP: "relative include '{include}' in SLS '{sls}' goes beyond the top level package",
  BRINE_ERR_COMPILE_BAD_INCLUDE: 'include in SLS {sls} must be a list of SLS references, got {got}',
  BRINE_ERR_COMPILE_BAD_EXCLUDE: "exclude in SLS {sls} must be a list of '- id: X' or '- sls: Y', got {got}",
  BRINE_ERR_COMPILE_BAD_EXTEND: 'extend in SLS {sls} must be a dictionary of ID declarations, got {got}',
  BRINE_ERR_COMPILE_DUPLICATE_ID: "conflicting ID '{id}': it is declared in SLS '{first}' and in SLS '{second}'; IDs must be unique across the state tree",
  BRINE_ERR_COMPILE_ID_NOT_DICT: "ID '{id}' in SLS {sls} is not a dictionary of state declarations (got {got})",
  BRINE_ERR_COMPILE_BAD_STATE_DECL: "ID '{id}': state declaration '{state}' must be a list of the function and its arguments (got {got})",
  BRINE_ERR_COMPILE_NO_FUNCTION: "ID '{id}': state '{state}' names no function",
  BRINE_ERR_COMPILE_MULTIPLE_FUNCTIONS: "ID '{id}': state '{state}' names more than one function ({functions}); use one state declaration per function",
  BRINE_ERR_COMPILE_BAD_ARG: "ID '{id}': argument {index} of state '{state}' must be a one-key dictionary like '- key: value' (got {got})",
  BRINE_ERR_COMPILE_IGNORED_ARG:
    "ID '{id}': argument {index} of state '{state}' is neither a function name nor a '- key: value' dictionary (got {got}); it is ignored, as Salt ignores it",
  BRINE_ERR_COMPILE_MULTI_KEY_ARG:
    "ID '{id}': argument {index} of state '{state}' is one dictionary with several keys ({keys}); each key is applied as its own argument, as Salt does (did you mean to indent the keys after the first under it?)",
  BRINE_ERR_COMPILE_MULTI_KEY_REQUISITE:
    "ID '{id}': argument {index} of state '{state}' starts with requisite '{key}' but has several keys ({keys}); Salt refuses this (Multiple dictionaries defined in argument)",
  BRINE_ERR_COMPILE_SUSPICIOUS_ARG: "ID '{id}': argument '{key}' is not a requisite; did you mean '{suggestion}'?",
  BRINE_ERR_COMPILE_UNKNOWN_KEY: "ID '{id}': unknown {what} '{key}'",
  BRINE_ERR_COMPILE_BAD_REQUISITE: "ID '{id}': requisite '{requisite}' must be a list of '- <state>: <id or name>' references (got {got})",
  BRINE_ERR_COMPILE_REQUISITE_NOT_FOUND: "ID '{id}': requisite '{requisite}' names '{ref}', which matches no state in this run",
  BRINE_ERR_COMPILE_REQUISITE_IN_EMPTY:
    "ID '{id}': requisite '{requisite}' names 'sls: {sls}', which has no states in this run; nothing is extended by it (as in Salt)",
  BRINE_ERR_COMPILE_EXTEND_MISSING: "extend in SLS {sls} names ID '{id}', which is not in this run (was it included?)",
  BRINE_ERR_COMPILE_REQUISITE_IN_LOST:
    "a requisite_in naming '{state}: {from}' went to ID '{id}', which has no '{state}' state; Salt drops such a requisite, and so does Brine",
  BRINE_ERR_COMPILE_EXTEND_TWICE: "ID '{id}' is extended more than once (in SLS {first} and {second})",
  BRINE_ERR_COMPILE_CYCLE: 'requisite cycle: {cycle}',
  BRINE_ERR_COMPILE_BAD_NAMES: "ID '{id}': names must be a list of names (got {got})",
  BRINE_ERR_COMPILE_BAD_ORDER: "ID '{id}': order must be a number, 'first' or 'last' (got {got})",
  BRINE_ERR_COMPILE_ORDER_STRING:
    "ID '{id}': order {got} is a string, which Salt ignores (the state keeps the default order); write a number, 'first' or 'last'",
  BRINE_ERR_COMPILE_USE_SELF: "ID '{id}': state uses itself",
  BRINE_ERR_COMPILE_USE_CYCLE: 'circular use: {cycle}',
  BRINE_ERR_COMPILE_PREREQ_SELF: "ID '{id}': state is a prereq of itself",
  BRINE_ERR_COMPILE_TOP: 'top file of environment {env}: {detail}',
  BRINE_ERR_COMPILE_BAD_TARGET: "bad target '{target}' ({type}): {detail}",
  BRINE_ERR_COMPILE_BAD_MERGE_STRATEGY: "unknown top_file_merging_strategy '{strategy}' (merge, same, merge_all)",
  BRINE_ERR_COMPILE_ARG_BIND: "ID '{id}': {detail}",
  BRINE_ERR_COMPILE_HOST_CALL:
    '{call} asks the host, and no minion answered it: host calls are answered by the minion the compile is for (brine validate --minion ID, or a job on that minion)',
  BRINE_ERR_COMPILE_HOST_UNANSWERED: "{call}: the minion '{minion}' did not answer this host call: {reason}",
  BRINE_ERR_COMPILE_HOST_ROUNDS: '{call}: the templates still make new host calls after {rounds} rounds of asking the minion (each answer led to another call)',
  BRINE_ERR_COMPILE_PILLAR_MISSING: "pillar SLS '{sls}' in environment '{env}' is not available in the pillar roots{from}",
  BRINE_ERR_COMPILE_RENDERER: "{file}: renderer '{renderer}' is not supported (Brine renders jinja, yaml, yamlex, json, gpg and mjs)",
  BRINE_ERR_COMPILE_UNKNOWN_ARG: "ID '{id}': {fun} takes no argument '{key}': {what}",
  BRINE_ERR_COMPILE_SLS_CYCLE:
    "requisite cycle through an 'sls:' requisite: {cycle}; as in Salt, the run goes on and a state on it fails with 'Recursive requisite found'",
  BRINE_ERR_COMPILE_MJS: '{file}: the #!mjs module did not render: {detail}',
  BRINE_ERR_COMPILE_RENDERER_MJS_ALONE:
    "{file}: line 1: '#!mjs' is a whole renderer (the module's default export returns the data); it takes no other renderer in its pipe",
  BRINE_ERR_COMPILE_RENDERER_PYTHON:
    "{file}: line 1: renderer '{renderer}' runs Python, which Brine never runs; write the file as '#!jinja|yaml' (Jinja for the logic, YAML or JSON for the data), or as '#!mjs' (a JavaScript module whose default export returns the data)",
  BRINE_ERR_COMPILE_GPG_NOT_HERE:
    '{file}: PGP blocks through the gpg renderer are decrypted by the master in pillar files only; keep the secret in pillar and read it with pillar.get',
});

export type CompilerErrorCode = keyof typeof compilerErrors.table;
