import { defineErrors } from '@brine/core';

export const minionErrors = defineErrors({
  BRINE_ERR_MINION_CONFIG: 'minion config {file}: {detail}',
  BRINE_ERR_MINION_MASTER_FINGER:
    'master {master}: fingerprint {got} does not match the pinned {want} ({source}); refusing to talk to this master. Masters listed together must share one certificate (tls_cert, tls_key). If the master really changed its certificate, update master_finger or delete {file}',
  BRINE_ERR_MINION_KEY: 'minion key in {dir}: {detail}',
  BRINE_ERR_MINION_SPOOL: 'result spool {file} (spool.db): {detail}; results not yet acknowledged by the master are kept there',
  BRINE_ERR_MINION_BAD_ARGS: 'Passed invalid arguments to {fun}: {detail}',
  BRINE_ERR_MINION_UNKNOWN_FUNCTION: "'{fun}' is not available.",
  BRINE_ERR_MINION_FUNCTION_FAILED: '{fun} failed: {detail}',
  BRINE_ERR_MINION_JOB_KILLED: 'job {jid} was killed',
  BRINE_ERR_MINION_JOB_INTERRUPTED:
    'job {jid} ({fun}, started {started}) was interrupted: the minion stopped while running it and it did not finish; what it changed before that may be partial',
  BRINE_ERR_MINION_HOST_ANSWER_TOO_DEEP: 'the answer of {fun} is nested more than {limit} levels deep (at {at}): the master refuses such data',
  BRINE_ERR_MINION_HOST_ANSWER_TOO_LARGE: 'the answer of {fun} is {size} bytes, more than the {limit} bytes left in the frame to the master (max_frame_bytes)',
  BRINE_ERR_MINION_SPOOL_QUARANTINED: 'the {what} of job {jid} moved out of spool.db to {file}: {reason}; it is not sent again',
  BRINE_ERR_MINION_CALL_UNREACHABLE: 'cannot reach the master at {master}: {reason}. {hint}',
  BRINE_ERR_MINION_CALL_KEY: '{detail}',
  BRINE_ERR_MINION_CALL_LOST: 'lost the master {master} before the call finished; nothing more is stored',
  BRINE_ERR_MINION_ANSWER_PARTS: "the master's answer to '{op}' came in parts out of order or did not parse: {detail}",
  BRINE_ERR_MINION_MINE_FUNCTION: '{where}: {name} is not pushed to the mine: {detail}',
  BRINE_ERR_MINION_SCHEDULE: "schedule '{name}': {detail}",
  BRINE_ERR_MINION_NO_SCHEDULER: '{fun} changes the schedule of the running minion daemon: run it through the master (brine run), not brine call',
});
