import { defineErrors } from '@brine/core';

/** Every error the bindings resolver reports. Messages name the files involved; line in the diagnostic. */
export const bindingsErrors = defineErrors({
  BRINE_ERR_BINDINGS_YAML: 'bad YAML in bindings file: {detail}',
  BRINE_ERR_BINDINGS_SHAPE: 'bad bindings file: {detail}',
  BRINE_ERR_BINDINGS_VERSION: 'unsupported bindings_version {got} (this Brine reads bindings_version: 1)',
  BRINE_ERR_BINDINGS_NAME_MISMATCH: "bindings file is at the place of '{expected}' but its name is '{got}'; the name must follow the file's location",
  BRINE_ERR_BINDINGS_DUPLICATE_FILE: "bindings '{bindings}' are defined twice in the {layer} layer: {files}",
  BRINE_ERR_BINDINGS_UNSUPPORTED: "'{key}' is not supported in bindings files ({why})",
  BRINE_ERR_BINDINGS_UNKNOWN_CATEGORY: "when: names the unknown category '{category}' (known categories, highest first: {known})",
  BRINE_ERR_BINDINGS_DUPLICATE: "'{name}' is bound more than once at the same precedence ({precedence}) in the {layer} layer: {places}",
  BRINE_ERR_BINDINGS_ABSTRACT: "'{name}' is abstract in {place} and nothing overrides it for this minion; bind it in a higher layer or at a higher precedence",
  BRINE_ERR_BINDINGS_OVERRIDE_NOTHING: "'{name}' at {place} is marked override but there is no lower binding of '{name}' to override",
  BRINE_ERR_BINDINGS_LOOKUP_LOOP: 'lookup loop: {chain}',
  BRINE_ERR_BINDINGS_LOOKUP_MISSING: "'{name}' at {place} looks up {what}, which is not bound for this minion",
  BRINE_ERR_BINDINGS_HASH_LOOKUP: "'{name}' at {place}: {detail}",
  BRINE_ERR_BINDINGS_INTERPOLATION: "'{name}' at {place}: cannot interpolate '{expr}': {detail}",
  BRINE_ERR_BINDINGS_TYPE: "'{name}' at {place} is declared {type} but its value is {got}",
  BRINE_ERR_BINDINGS_MULTIBIND: "multibind '{id}' ('{name}'): {detail}",
  BRINE_ERR_BINDINGS_UNKNOWN_MULTIBIND: "{place} contributes to multibind '{id}', which no bindings file declares",
  BRINE_ERR_BINDINGS_NAME_CLASH: "'{name}' is bound to a non-dictionary value, so '{inner}' cannot be nested under it",
});

export type BindingsErrorCode = keyof typeof bindingsErrors.table & string;
