import { defineErrors } from '@brine/core';

export const masterErrors = defineErrors({
  BRINE_ERR_MASTER_CONFIG: 'master config {file}: {detail}',
  BRINE_ERR_MASTER_TLS: 'cannot set up TLS: {detail}',
  BRINE_ERR_MASTER_TLS_FILE: '{option} {file}: {detail}; the master does not start without its configured TLS identity',
  BRINE_ERR_MASTER_STORE: 'store {file}: {detail}',
  BRINE_ERR_MASTER_STORE_CORRUPT:
    'store {file} is damaged ({detail}); the master will not start on it. Stop the master, move the file aside (with its -wal and -shm files), then restore a backup or recover what SQLite can read: sqlite3 {file} .recover | sqlite3 master-recovered.db',
  BRINE_ERR_MASTER_STORE_EMPTY:
    'store {file} is empty (0 bytes) but this master has run before ({evidence}): starting would forget every key, job and result. Restore the store from a backup, or delete the empty file to start over deliberately',
  BRINE_ERR_MASTER_STORE_WRITE:
    'store {file}: a write of {writes} queued changes failed ({detail}); retrying in {retry_ms} ms, nothing is acknowledged until it commits',
  BRINE_ERR_MASTER_STORE_URL: 'store {url}: {detail}',
  BRINE_ERR_MASTER_STORE_MIGRATE: 'store migrate: {detail}',
  BRINE_ERR_MASTER_TREE_MISMATCH:
    'job {jid} was published with another state or pillar tree ({want}) than master {master} serves ({have}): this master will not compile it. Make every master of the cluster serve the same file_roots and pillar_roots',
  BRINE_ERR_MASTER_LOCKED: 'data_dir lock {file}: {detail}',
  BRINE_ERR_MASTER_UNAUTHORIZED: 'missing or wrong API token',
  BRINE_ERR_MASTER_CSRF: 'missing or wrong CSRF token: reload the console and try again',
  BRINE_ERR_MASTER_BAD_REQUEST: '{detail}',
  BRINE_ERR_MASTER_NOT_FOUND: '{what} not found',
  BRINE_ERR_MASTER_NO_MINIONS: "no minions matched the target '{target}' ({type})",
  BRINE_ERR_MASTER_BAD_BATCH: "bad batch size '{batch}': use a number or a percentage like 25%",
  BRINE_ERR_MASTER_AUTH_FAILED: 'minion {minion}: signature does not verify for this session',
  BRINE_ERR_MASTER_KEY_DENIED: 'minion {minion}: a different key is already known for this id; the new key is denied',
  BRINE_ERR_MASTER_BAD_KEY: 'minion {minion}: refused key: {detail}; a minion presents an Ed25519 public key as SPKI PEM',
  BRINE_ERR_MASTER_KEY_RATE_LIMITED: 'minion {minion}: too many new keys {scope} ({rate} a minute, {option}); try again later',
  BRINE_ERR_MASTER_KEY_REJECTED: 'minion {minion}: key is rejected',
  BRINE_ERR_MASTER_NOT_YOUR_JOB: 'minion {minion} was not a target of job {jid}',
  BRINE_ERR_MASTER_UNKNOWN_JOB:
    'minion {minion}: job {jid} is unknown to this master (never published here, or older than keep_jobs_seconds); its results are refused for good',
  BRINE_ERR_MASTER_TOPS: "master_tops plugin '{name}' failed for minion {id}: {detail}",
  BRINE_ERR_MASTER_FILE_REFUSED: "file request refused: '{path}' {detail}",
  BRINE_ERR_MASTER_UNKNOWN_ENV: "environment '{env}' is not served by this master",
  BRINE_ERR_MASTER_BAD_OP: "unknown request '{op}'",
  BRINE_ERR_MASTER_HOST_TIMEOUT: 'minion {minion} did not answer the host calls within {seconds} s (host_call_timeout)',
  BRINE_ERR_MASTER_HOST_GONE: 'minion {minion} is not connected: nobody can answer its host calls',
  BRINE_ERR_MASTER_HOST_REFUSED: 'minion {minion} refused the host calls: {code}: {message}',
  BRINE_ERR_MASTER_PILLAR_UNSAFE_MATCHER:
    '{file}:{line}: the pillar top file targets by {what}, which the minion itself asserts; pillar_safe_matchers_only allows only the minion id (match: glob, pcre, list, or a nodegroup of those; L@, E@ and N@ of those in a compound) and templates that read none of grains, pillar, salt and opts',
  BRINE_ERR_MASTER_COMPILE_WORKER: 'the compile worker stopped while rendering {file}: {detail}; the worker is replaced, this compile fails',
  BRINE_ERR_MASTER_INTERNAL: 'internal error: {detail}',
  BRINE_ERR_MASTER_LISTEN: 'cannot listen for the {what} on {address}: {detail}',
  BRINE_ERR_MASTER_UNREACHABLE:
    "cannot reach the master API at {url}: {detail}; is the master running? Start it with 'brine master --config MASTER_CONFIG', or point brine at another one with --config or BRINE_API_URL",
  BRINE_ERR_MASTER_BUSY:
    "minion {minion} has {limit} requests waiting for answers already (the limit per session): '{op}' is refused; ask again once they are answered",
  BRINE_ERR_MASTER_STORE_LOCKED:
    "store {file} is in use by another master (it holds {lock}; 'fuser {lock}' names it): one master per SQLite store. Stop it, or give this master its own store; masters that share a store use PostgreSQL",
  BRINE_ERR_MASTER_STORE_MISSING:
    'store {file} does not exist but this master has run before ({evidence}): starting would begin an empty store and forget every key, job and result. Restore {file} from a backup (or point store: at it), or start with --new-store (new_store: true) to begin a new store deliberately',
  BRINE_ERR_MASTER_AUTH_BACKOFF: 'too many wrong API tokens from {source}: no token from there is checked for {seconds} s',
  BRINE_ERR_MASTER_API_HOST:
    "the operator API does not answer to the name '{host}' (a guard against DNS rebinding): use an IP address, localhost or api_host, or add the name to api_allowed_hosts in the master config",
  BRINE_ERR_MASTER_API_INSECURE:
    'api_host {host} is not a loopback address and the operator API has no TLS: the API token and console sessions would cross the network in clear. Set api_tls_cert and api_tls_key (a certificate and key in PEM), or set api_insecure_http: true to serve plain HTTP anyway (behind a TLS proxy on a trusted network)',
  BRINE_ERR_MASTER_COMPILE_TRANSFER:
    'minion {minion}: the {what} could not pass between the master and its compile worker: {detail}; this compile fails, the worker stays in service',
  BRINE_ERR_MASTER_KEY_CONFLICT:
    "minion {minion}: another key is accepted for this id (fingerprint {accepted}); the key offered ({offered}) is not accepted beside it. If the host was reinstalled, 'brine key delete {minion}' first",
  BRINE_ERR_MASTER_KEY_RACE:
    'minion {minion}: the key rows of this id kept changing while its hello (key {fingerprint}) was decided (other masters enrolling the same id at once); the minion tries again',
  BRINE_ERR_MASTER_JOB_RATE:
    'minion {minion} records jobs for itself faster than {rate} a minute (its schedules or brine call); this one is refused, try again later',
  BRINE_ERR_MASTER_MINE_TOO_LARGE:
    'minion {minion}: the mine value of {fun} is refused: {detail} (the mine keeps at most {limit} per minion and function); push less, or leave that function out of mine_functions',
  BRINE_ERR_MASTER_MINE_TOO_MANY:
    'minion {minion}: the mine would hold {count} functions for it, more than the {limit} it keeps per minion; {fun} is refused (mine.delete or mine.flush the ones no longer used)',
  BRINE_ERR_MASTER_SCHEDULE_NO_RUNNER: "schedule '{name}': the runner function {fun} is not available on this master",
  // orchestration
  BRINE_ERR_MASTER_UNKNOWN_RUNNER: "runner '{fun}' is not available (this master has: state.orchestrate, state.orch)",
  BRINE_ERR_MASTER_GPG_DECRYPT:
    "{what} file {file}: a PGP block encrypted to key {key} cannot be decrypted with the keyring in gpg_keydir ({keydir}): {reason}; this minion's {fails} fails. Import that secret key there (gpg --homedir {keydir} --import), or encrypt the value to a key the keyring holds",
  // ---- events and the reactor (issue 25) ----
  BRINE_ERR_MASTER_EVENT_TAG:
    "event tag '{tag}' refused: {detail} (a minion may not fire under salt/ or brine/, the master's own record of jobs, keys and minions)",
  BRINE_ERR_MASTER_EVENT_DATA: 'event {tag}: the data is refused: {detail}',
  BRINE_ERR_MASTER_REACTOR_RENDER: 'reactor {file} for event {tag}: {detail}',
  BRINE_ERR_MASTER_REACTOR_REACTION: "reactor {file}:{line}: reaction '{id}' ({fun}) for event {tag} failed: {detail}",
  BRINE_ERR_MASTER_REACTOR_LOOP:
    "reactor rule '{rule}': event {tag} comes from a chain of {depth} reactions (reactor_max_depth {max}): not reacting again, a reaction seems to trigger itself",
  BRINE_ERR_MASTER_REACTOR_RATE:
    "reactor rule '{rule}' reacted {count} times in the last minute (reactor_rate {rate}): event {tag} is not reacted to, a reaction seems to trigger itself",
  BRINE_ERR_MASTER_EVENT_RATE: 'minion {minion} sends events faster than {rate} a minute (event.send); this one is refused, try again later',
  BRINE_ERR_MASTER_REACTOR_NO_RUNNER: "reactor {file}:{line}: '{fun}' needs the master's runners, which this master does not have",
  // ext_pillar
  BRINE_ERR_MASTER_EXT_PILLAR: 'Failed to load {source}: {detail}',
  // ---- accounts, permissions and the audit trail (issue 27) ----
  BRINE_ERR_MASTER_EAUTH_CONFIG: 'master config {where}: {detail}',
  BRINE_ERR_MASTER_FORBIDDEN: 'user {user} ({eauth}) may not {what}: the permission missing is {perm} (external_auth.{eauth} in the master config)',
  BRINE_ERR_MASTER_BAD_LOGIN: 'sign-in refused for {user}: unknown user, wrong password, or no permissions in external_auth',
  BRINE_ERR_MASTER_LDAP: 'LDAP {server}: {detail}',
  BRINE_ERR_MASTER_NO_USER: "no local user '{user}' (brine user list shows them)",
});

export type MasterErrorCode = keyof typeof masterErrors.table;
