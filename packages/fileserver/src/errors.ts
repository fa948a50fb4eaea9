import { defineErrors } from '@brine/core';

/** The file server backends' coded errors. URLs in them are redacted (no password, ever). */
export const fileserverErrors = defineErrors({
  BRINE_ERR_FILESERVER_CONFIG: '{option}: {detail}',
  BRINE_ERR_FILESERVER_GIT: "git {what} of remote '{remote}' failed: {detail}",
  BRINE_ERR_FILESERVER_GIT_TIMEOUT: "git {what} of remote '{remote}' took longer than {seconds}s and was stopped",
});

export type FileserverErrorCode = keyof typeof fileserverErrors.table;
