// The Brine console: plain DOM, no framework, no build step. Everything a minion or an operator
// controls (ids, grains, comments, changes) goes into the page as text nodes, never as HTML.

const main = document.getElementById('main');
let csrf = '';
let stream; // the EventSource of the current view, closed on navigation

/** An element: h('td', {class: 'ok'}, 'text', child...). Strings become text nodes. */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

function show(...nodes) {
  main.replaceChildren(...nodes);
}

class Unauthorized extends Error {}

/** The master's API with the console's session cookie; state changes carry the CSRF token. */
async function api(path, opts = {}) {
  const headers = { accept: 'application/json' };
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  if (opts.method && opts.method !== 'GET') {
    headers['x-csrf-token'] = csrf;
    // recorded as the job's user, as `brine run` records the operator's name
    headers['x-brine-user'] = 'console';
  }
  const res = await fetch(path, {
    method: opts.method ?? 'GET',
    headers,
    credentials: 'same-origin',
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  if (res.status === 401) throw new Unauthorized();
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(data.message ? `${data.code}: ${data.message}` : `HTTP ${res.status}`);
  return data;
}

const time = (iso) => (iso ? new Date(iso).toLocaleString() : '—');
const resultText = (r) => (r === true ? 'ok' : r === false ? 'failed' : 'would change');
const resultClass = (r) => (r === true ? 'ok' : r === false ? 'bad' : 'warn');
/** A header cell of a column a phone's width leaves out (its cells carry the same class). */
const narrow = (label) => ({ label, cls: 'hide-narrow' });
const table = (head, rows) =>
  h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      {},
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          head.map((c) => (typeof c === 'string' ? h('th', {}, c) : h('th', { class: c.cls }, c.label))),
        ),
      ),
      h('tbody', {}, rows),
    ),
  );
const json = (v) => h('pre', { class: 'mono' }, JSON.stringify(v, null, 2));

/** An argument as `brine run` takes it: strings bare, booleans as Salt writes them, the rest as JSON. */
const argText = (v) => (typeof v === 'string' ? v : v === true ? 'True' : v === false ? 'False' : JSON.stringify(v));
/** A job's arguments as typed: `site test=True`. */
const jobArgs = (j) => [...(j.arg ?? []).map(argText), ...Object.entries(j.kwarg ?? {}).map(([k, v]) => `${k}=${argText(v)}`)].join(' ');
/** test=True, however it was written: nothing was changed, only reported. */
const isDryRun = (j) => [true, 1, 'true', 'True', 'yes'].includes(j.kwarg?.test);
const dryRunPill = (j) =>
  isDryRun(j) ? h('span', { class: 'pill warn dry-run', title: 'test=True: reports what would change, changes nothing' }, 'dry run') : '';

/** Salt's compound forms (G@role:web, L@a,b, I@x:y, not/and/or): a target written so is compound. */
const looksCompound = (tgt) => /(^|[\s(])[GEPLIJSRN]@/.test(tgt) || /\s(and|or|not)\s/.test(` ${tgt} `);
/** The target type to use: the one picked, unless "glob" was left while a compound form was typed. */
const targetType = (tgt, picked) => (picked === 'glob' && looksCompound(tgt) ? 'compound' : picked);

// ---- sign-in ----------------------------------------------------------------------------

/** The sign-in page; after signing in, the page that was asked for (a job link, say) opens. */
function loginView(message) {
  const error = h('div', { class: 'error', role: 'alert' }, message ?? '');
  /** Posts the sign-in; on success the console opens, else the form says why. */
  const signIn = async (body, refused) => {
    try {
      const res = await fetch('/ui/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        credentials: 'same-origin',
        body: JSON.stringify(body),
      });
      if (!res.ok) throw new Error(res.status === 429 ? 'Too many wrong tries from here: wait a little.' : refused);
      csrf = (await res.json()).csrf;
      // the page asked for (a job link opened while signed out) opens, not the minions page
      route();
    } catch (e) {
      error.textContent = e.message;
    }
  };
  const user = h('input', { name: 'username', autocomplete: 'username', required: true, placeholder: 'user', 'aria-label': 'user' });
  const password = h('input', {
    type: 'password',
    name: 'password',
    autocomplete: 'current-password',
    required: true,
    placeholder: 'password',
    'aria-label': 'password',
  });
  const userForm = h(
    'form',
    {
      class: 'login',
      onsubmit: (ev) => {
        ev.preventDefault();
        signIn({ username: user.value, password: password.value }, 'Wrong user or password, or no permissions on this master.');
      },
    },
    h('label', {}, 'User and password (a local user, or your directory account)'),
    user,
    password,
    h('button', { class: 'primary', type: 'submit' }, 'Sign in'),
  );
  const input = h('input', {
    type: 'password',
    name: 'token',
    autocomplete: 'off',
    required: true,
    placeholder: 'API token',
    'aria-label': 'API token',
  });
  const hint = h('label', {}, 'Or an API token (the master’s token_file, or one from `brine token create`)');
  // the master says where its token is (a default path would send the operator to the wrong file)
  fetch('/ui/session', { credentials: 'same-origin' })
    .then((r) => r.json())
    .then((d) => {
      if (d.token_file) hint.textContent = `Or an API token (this master’s token_file: cat ${d.token_file}; or one from \`brine token create\`)`;
    })
    .catch(() => undefined);
  const form = h(
    'form',
    {
      class: 'login',
      onsubmit: (ev) => {
        ev.preventDefault();
        signIn({ token: input.value }, 'That token is not this master’s API token, nor a valid user token.');
      },
    },
    hint,
    input,
    h('button', { type: 'submit' }, 'Sign in with the token'),
  );
  document.getElementById('nav').hidden = true;
  show(h('h1', {}, 'Sign in to the Brine master'), userForm, form, error);
  user.focus();
}

// ---- minions ----------------------------------------------------------------------------

/** Minions per page of the list (the master pages them: 10,000 minions are not shipped at once). */
const MINIONS_PER_PAGE = 100;

async function minionsView(params) {
  const pageNo = Math.max(1, Number(params.get('page')) || 1);
  const q = new URLSearchParams({ limit: String(MINIONS_PER_PAGE), offset: String((pageNo - 1) * MINIONS_PER_PAGE), grains: 'os,osrelease' });
  const tgtType = targetType(params.get('tgt') ?? '', params.get('type') ?? 'glob');
  if (params.get('tgt')) {
    q.set('tgt', params.get('tgt'));
    q.set('tgt_type', tgtType);
  }
  const error = h('div', { class: 'error' });
  const page = api(`/v1/minions?${q}`).catch((e) => {
    // a target the matchers refuse: say why, list nothing
    if (e instanceof Unauthorized || !params.get('tgt')) throw e;
    error.textContent = e.message;
    return { minions: [], total: 0 };
  });
  const [{ minions: shown, total }, keys, { last }] = await Promise.all([page, api('/v1/keys'), api('/v1/states/last')]);
  const keyOf = new Map(keys.keys.map((k) => [k.minion, k.state]));
  const lastOf = new Map(last.map((l) => [l.minion, l]));
  const tgt = h('input', { name: 'tgt', placeholder: 'target, e.g. web* or G@role:web', value: params.get('tgt') ?? '' });
  const type = h(
    'select',
    { name: 'tgt_type' },
    ['glob', 'pcre', 'list', 'grain', 'grain_pcre', 'pillar', 'nodegroup', 'ipcidr', 'compound'].map((t) =>
      h('option', { value: t, selected: t === tgtType }, t),
    ),
  );
  const pageLink = (n, label, rel) => {
    const p = new URLSearchParams(params);
    p.set('page', String(n));
    return h('a', { href: `#/minions?${p}`, rel, class: 'pill' }, label);
  };
  const from = (pageNo - 1) * MINIONS_PER_PAGE;
  const pager = h(
    'p',
    { class: 'row pager' },
    h('span', { class: 'muted' }, `${shown.length ? `${from + 1}–${from + shown.length}` : '0'} of ${total} minions${params.get('tgt') ? ' matched' : ''}`),
    pageNo > 1 ? pageLink(pageNo - 1, '‹ previous', 'prev') : '',
    from + shown.length < total ? pageLink(pageNo + 1, 'next ›', 'next') : '',
  );
  const rows = shown.map((m) => {
    const l = lastOf.get(m.id);
    const lastCell = l
      ? h(
          'a',
          { href: `#/job/${l.jid}` },
          h('span', { class: `pill ${l.failed ? 'bad' : 'ok'}` }, l.failed ? `${l.failed} failed` : 'ok'),
          ' ',
          l.changed ? h('span', { class: 'pill warn' }, `${l.changed} changed`) : '',
        )
      : h('span', { class: 'muted' }, 'none');
    return h(
      'tr',
      { class: 'clickable', dataset: { minion: m.id }, onclick: () => (location.hash = `#/minion/${encodeURIComponent(m.id)}`) },
      h('td', {}, h('a', { href: `#/minion/${encodeURIComponent(m.id)}` }, m.id)),
      h(
        'td',
        {},
        h('span', { class: m.connected ? 'ok' : 'muted' }, m.connected ? '● connected' : '○ away'),
        m.master ? h('div', { class: 'muted' }, m.master) : '',
      ),
      h('td', { class: 'hide-narrow' }, time(m.last_seen)),
      h('td', {}, keyOf.get(m.id) ?? 'unknown'),
      h('td', { class: 'hide-narrow' }, [m.grains.os, m.grains.osrelease].filter(Boolean).join(' ') || '—'),
      h('td', {}, lastCell),
    );
  });
  show(
    h('h1', {}, 'Minions'),
    h(
      'form',
      {
        class: 'row',
        onsubmit: (ev) => {
          ev.preventDefault();
          location.hash = tgt.value ? `#/minions?tgt=${encodeURIComponent(tgt.value)}&type=${targetType(tgt.value, type.value)}` : '#/minions';
        },
      },
      tgt,
      type,
      h('button', { type: 'submit' }, 'Filter'),
    ),
    error,
    pager,
    table(['Minion', 'Connection', narrow('Last seen'), 'Key', narrow('OS'), 'Last highstate'], rows),
  );
}

async function minionView(id) {
  const [{ minions }, jobs, pillar] = await Promise.all([
    api(`/v1/minions?id=${encodeURIComponent(id)}`),
    api(`/v1/jobs?minion=${encodeURIComponent(id)}&limit=200`),
    api(`/v1/minions/${encodeURIComponent(id)}/pillar`).catch((e) => ({ error: e.message })),
  ]);
  const m = minions.find((x) => x.id === id);
  // its state runs: highstates, and state.sls / state.single applies
  const runs = jobs.jobs.filter((j) => j.fun.startsWith('state.')).slice(0, 20);
  const explainOut = h('div');
  const explainName = h('input', { placeholder: 'pillar key, e.g. apache' });
  const explain = h(
    'form',
    {
      class: 'row',
      onsubmit: async (ev) => {
        ev.preventDefault();
        try {
          const r = await api(`/v1/minions/${encodeURIComponent(id)}/pillar/explain?name=${encodeURIComponent(explainName.value)}`);
          explainOut.replaceChildren(h('pre', { class: 'mono' }, r.text || (r.bound ? '' : `${r.name} is not bound by any binding (classic pillar only)`)));
        } catch (e) {
          explainOut.replaceChildren(h('div', { class: 'error' }, e.message));
        }
      },
    },
    explainName,
    h('button', { type: 'submit' }, 'Explain'),
  );
  const pillarKeys = pillar.pillar ? Object.keys(pillar.pillar) : [];
  show(
    h('h1', {}, id),
    m
      ? h('p', {}, h('span', { class: m.connected ? 'ok' : 'muted' }, m.connected ? '● connected' : '○ away'), ` · last seen ${time(m.last_seen)}`)
      : h('p', { class: 'error' }, 'not a known minion'),
    h('h2', {}, 'Highstate history'),
    table(
      ['Job', 'Function', 'Started', 'Returned'],
      runs.map((j) =>
        h(
          'tr',
          { class: 'clickable', onclick: () => (location.hash = `#/job/${j.jid}`) },
          h('td', { class: 'mono' }, h('a', { href: `#/job/${j.jid}` }, j.jid)),
          h('td', {}, j.fun),
          h('td', {}, time(j.created_at)),
          h('td', {}, `${j.returned}/${j.expected.length}`),
        ),
      ),
    ),
    h('h2', {}, 'Pillar'),
    pillar.error ? h('div', { class: 'error' }, pillar.error) : json(pillar.pillar),
    pillarKeys.length ? h('p', { class: 'muted' }, 'Which binding gave a key its value, and what it shadowed:') : '',
    explain,
    explainOut,
    h('h2', {}, 'Grains'),
    json(m?.grains ?? {}),
  );
}

// ---- keys -------------------------------------------------------------------------------

/** What to compare before trusting a key: the minion logs the same fingerprint with key_pending. */
const compareHint = 'Compare with the fingerprint the minion logs (key_pending) on its host.';

async function keysView() {
  const [{ keys }, finger] = await Promise.all([api('/v1/keys'), api('/v1/keys/finger')]);
  const act = (action, k) => async () => {
    const verb = { accept: 'Accept', reject: 'Reject', delete: 'Delete' }[action];
    const after = action === 'delete' ? 'It may ask again as pending.' : compareHint;
    if (!confirm(`${verb} the key of ${k.minion}?\n\nFingerprint: ${k.fingerprint}\n${after}`)) return;
    await api(`/v1/keys/${action}`, {
      method: 'POST',
      body: { match: k.minion, include_rejected: action === 'accept', include_accepted: action === 'reject' },
    });
    route();
  };
  const pending = keys.filter((k) => k.state === 'pending');
  // the keys listed are the keys accepted: one asking after the confirmation is not taken unseen
  const acceptAll = async () => {
    const list = pending.map((k) => `${k.minion}  ${k.fingerprint}`).join('\n');
    if (!confirm(`Accept the ${pending.length} pending keys?\n\n${list}\n\n${compareHint}`)) return;
    for (const k of pending) await api('/v1/keys/accept', { method: 'POST', body: { match: k.minion } });
    route();
  };
  const sections = ['pending', 'accepted', 'rejected', 'denied'].map((state) => {
    const rows = keys.filter((k) => k.state === state);
    return [
      h('h2', {}, `${state[0].toUpperCase()}${state.slice(1)} (${rows.length})`),
      state === 'pending' && rows.length > 0
        ? h('p', {}, h('button', { class: 'primary', type: 'button', onclick: acceptAll }, `Accept all pending (${rows.length})`))
        : '',
      rows.length
        ? table(
            ['Minion', 'Fingerprint', narrow('Since'), ''],
            rows.map((k) =>
              h(
                'tr',
                { dataset: { key: k.minion } },
                h('td', {}, k.minion),
                h('td', { class: 'mono finger' }, k.fingerprint),
                h('td', { class: 'hide-narrow' }, time(k.updated_at)),
                h(
                  'td',
                  { class: 'actions' },
                  state !== 'accepted' && state !== 'denied' ? h('button', { class: 'primary', type: 'button', onclick: act('accept', k) }, 'Accept') : '',
                  state !== 'rejected' ? h('button', { class: 'danger', type: 'button', onclick: act('reject', k) }, 'Reject') : '',
                  h('button', { class: 'danger', type: 'button', onclick: act('delete', k) }, 'Delete'),
                ),
              ),
            ),
          )
        : h('p', { class: 'muted' }, 'none'),
    ];
  });
  show(
    h('h1', {}, 'Keys'),
    h(
      'p',
      { class: 'muted' },
      'This master’s fingerprint (a minion pins it as master_finger): ',
      h('span', { class: 'mono finger', id: 'master-finger' }, finger.master),
    ),
    ...sections.flat(),
  );
}

// ---- run --------------------------------------------------------------------------------

/** CLI-style arguments: `a b key=value`; a value that reads as JSON (true, 3, [..]) is taken as such. */
function parseArgs(text) {
  const arg = [];
  const kwarg = {};
  for (const word of text.match(/"[^"]*"|'[^']*'|\S+/g) ?? []) {
    const unq = word.replace(/^(["'])(.*)\1$/, '$2');
    const m = /^([A-Za-z_][\w]*)=(.*)$/.exec(unq);
    const value = (v) => {
      try {
        return JSON.parse(v);
      } catch {
        return v;
      }
    };
    if (m) kwarg[m[1]] = value(m[2]);
    else arg.push(unq);
  }
  return { arg, kwarg };
}

function runView() {
  const tgt = h('input', { name: 'tgt', value: '*', required: true, 'aria-label': 'target' });
  const type = h(
    'select',
    { name: 'tgt_type' },
    ['glob', 'pcre', 'list', 'grain', 'pillar', 'nodegroup', 'compound'].map((t) => h('option', { value: t }, t)),
  );
  const fun = h('input', { name: 'fun', value: 'state.apply', required: true, 'aria-label': 'function' });
  const args = h('input', { name: 'args', placeholder: 'arguments, e.g. web pillar={"x":1}', 'aria-label': 'arguments' });
  const test = h('input', { type: 'checkbox', name: 'test' });
  const batch = h('input', { name: 'batch', placeholder: 'batch, e.g. 2 or 25%', size: 10, 'aria-label': 'batch' });
  const error = h('div', { class: 'error', role: 'alert' });
  show(
    h('h1', {}, 'Run'),
    h(
      'form',
      {
        onsubmit: async (ev) => {
          ev.preventDefault();
          const { arg, kwarg } = parseArgs(args.value);
          if (test.checked) kwarg.test = true;
          const body = {
            tgt: type.value === 'list' ? tgt.value.split(/[\s,]+/).filter(Boolean) : tgt.value,
            tgt_type: targetType(tgt.value, type.value),
            fun: fun.value,
            arg,
            kwarg,
            wait: false,
          };
          if (batch.value) body.batch = batch.value;
          try {
            const r = await api('/v1/jobs', { method: 'POST', body });
            location.hash = `#/job/${r.jid}`;
          } catch (e) {
            if (e instanceof Unauthorized) throw e;
            error.textContent = e.message;
          }
        },
      },
      h('div', { class: 'row' }, h('label', {}, 'Target '), tgt, type),
      h('div', { class: 'row' }, h('label', {}, 'Function '), fun),
      h('div', { class: 'row' }, h('label', {}, 'Arguments '), args),
      h('div', { class: 'row' }, h('label', {}, test, ' test=True (report what would change)'), batch),
      h('div', { class: 'row' }, h('button', { class: 'primary', type: 'submit' }, 'Run')),
      error,
    ),
  );
}

// ---- one job: live while it runs, the same view from the store afterwards ------------------

/**
 * The states a job will have run: a returned minion's are all in; a running one's are the states
 * its compile planned (the master's `planned`), unknown until it compiled.
 */
function plannedStates(report, byMinion, done) {
  let n = 0;
  for (const [minion, list] of byMinion) {
    if (report.returns[minion] || done) n += list.length;
    else if (report.planned?.[minion] !== undefined) n += Math.max(report.planned[minion], list.length);
    else return undefined;
  }
  return n;
}

/** "x of N states" with a bar; while N is not known yet, how many so far. */
function progress(x, n) {
  return h(
    'span',
    { class: 'progress' },
    h('span', { id: 'progress' }, n === undefined ? `${x} states so far` : `${x} of ${n} states`),
    h('progress', n === undefined ? {} : { value: x, max: Math.max(n, 1) }),
  );
}

async function jobView(jid, params) {
  const filter = params.get('show') ?? 'all';
  const selected = params.get('state');
  const head = h('div');
  const body = h('div');
  const mark = h('span');
  show(h('h1', {}, 'Job ', h('span', { class: 'mono' }, jid), ' ', mark), head, body);
  let pending;
  const render = async () => {
    const [report, { states }] = await Promise.all([api(`/v1/jobs/${jid}`), api(`/v1/jobs/${jid}/states`)]);
    const job = report.job;
    const byMinion = new Map(job.expected.map((m) => [m, []]));
    for (const s of states) (byMinion.get(s.minion) ?? byMinion.set(s.minion, []).get(s.minion)).push(s);
    const failed = states.filter((s) => s.result === false).length;
    const changed = states.filter((s) => Object.keys(s.changes).length > 0).length;
    const returned = Object.keys(report.returns).length;
    const done = returned + report.missing.filter((m) => m.reason === 'not connected').length >= job.expected.length;
    mark.replaceChildren(dryRunPill(job));
    head.replaceChildren(
      h(
        'p',
        {},
        h('b', {}, job.fun),
        ' ',
        jobArgs(job),
        ' on ',
        h('span', { class: 'mono' }, Array.isArray(job.target) ? job.target.join(',') : job.target),
        ` · by ${job.user} · ${time(job.created_at)}`,
        job.parent_jid ? h('span', {}, ' · step of orchestration ', h('a', { href: `#/job/${job.parent_jid}`, class: 'mono' }, job.parent_jid)) : '',
      ),
      h(
        'div',
        { class: 'summary', id: 'summary' },
        h('span', {}, h('b', {}, String(returned)), `/${job.expected.length} returned`),
        progress(states.length, plannedStates(report, byMinion, done)),
        h('span', { class: failed ? 'bad' : 'ok' }, h('b', {}, String(failed)), ' failed'),
        h('span', { class: 'warn' }, h('b', {}, String(changed)), ' changed'),
        h('span', { class: done ? 'ok' : 'warn', id: 'job-status' }, done ? 'done' : 'running…'),
      ),
      h(
        'div',
        { class: 'row' },
        ['all', 'failed', 'changed'].map((f) => h('a', { href: `#/job/${jid}?show=${f}`, class: f === filter ? 'pill' : '' }, f)),
      ),
    );
    const rows = [];
    for (const [minion, list] of byMinion) {
      const ret = report.returns[minion];
      const missing = report.missing.find((m) => m.minion === minion);
      rows.push(
        h(
          'tr',
          { class: 'minion-row' },
          h(
            'td',
            { colspan: 6 },
            h('b', {}, minion),
            ' ',
            ret
              ? h('span', { class: `pill ${ret.success ? 'ok' : 'bad'}` }, ret.success ? 'succeeded' : `failed (retcode ${ret.retcode})`)
              : missing && done
                ? h('span', { class: 'pill muted' }, missing.reason)
                : h('span', { class: 'pill warn' }, `${list.length} done…`),
          ),
        ),
      );
      // an orchestration's steps link the jobs they published (their jid is in the step's result)
      const children = ret && job.fun === 'state.orchestrate' && ret.return && typeof ret.return === 'object' ? ret.return : {};
      for (const s of list) {
        const child = children[s.tag]?.__jid__;
        const isChanged = Object.keys(s.changes).length > 0;
        if ((filter === 'failed' && s.result !== false) || (filter === 'changed' && !isChanged)) continue;
        const key = `${s.minion}/${s.run_num}`;
        rows.push(
          h(
            'tr',
            {
              class: 'clickable state-row',
              dataset: { state: key, result: String(s.result) },
              onclick: () => (location.hash = `#/job/${jid}?show=${filter}&state=${encodeURIComponent(key)}`),
            },
            h('td', { class: 'muted' }, String(s.run_num)),
            h(
              'td',
              {},
              s.id,
              s.name !== s.id ? h('div', { class: 'muted' }, s.name) : '',
              child ? h('div', {}, h('a', { href: `#/job/${child}`, class: 'mono child-job', onclick: (ev) => ev.stopPropagation() }, `job ${child}`)) : '',
            ),
            h('td', { class: 'mono hide-narrow' }, `${s.state}.${s.fun}`),
            h('td', { class: resultClass(s.result) }, resultText(s.result)),
            h('td', {}, isChanged ? h('span', { class: 'pill warn' }, 'changed') : ''),
            h('td', { class: 'hide-narrow' }, s.duration === null ? '' : `${s.duration.toFixed(1)} ms`),
          ),
        );
        if (selected === key) {
          rows.push(
            h(
              'tr',
              { class: 'detail-row' },
              h(
                'td',
                { colspan: 6 },
                h(
                  'div',
                  { class: 'detail', id: 'state-detail' },
                  h('div', {}, h('b', {}, 'Comment')),
                  h('pre', { class: 'mono' }, s.comment),
                  h('div', {}, h('b', {}, 'Changes')),
                  json(s.changes),
                  h('div', { class: 'muted' }, `${s.sls ?? ''} · started ${s.start_time ?? '—'} · ${s.duration ?? '—'} ms`),
                ),
              ),
            ),
          );
        }
      }
      if (ret && (typeof ret.return !== 'object' || ret.return === null || list.length === 0)) {
        rows.push(h('tr', {}, h('td', { colspan: 6 }, json(ret.return))));
      }
    }
    body.replaceChildren(table(['#', 'State', narrow('Function'), 'Result', 'Changes', narrow('Duration')], rows));
  };
  // each stored result arrives as an event: the view re-reads the job (debounced) from the store
  const refresh = () => {
    clearTimeout(pending);
    pending = setTimeout(() => render().catch(() => undefined), 100);
  };
  stream = new EventSource(`/v1/events?tag=${encodeURIComponent(`brine/job/${jid}/*`)}`);
  stream.addEventListener('brine', refresh);
  // a job that ends before the stream is subscribed sends no event the view would hear: once the
  // master has subscribed (and after each reconnect) the view reads the store again
  stream.addEventListener('open', refresh);
  await render();
}

// ---- jobs and events ----------------------------------------------------------------------

async function jobsView(params) {
  const q = new URLSearchParams();
  for (const k of ['function', 'target', 'minion', 'since', 'until']) if (params.get(k)) q.set(k, params.get(k));
  q.set('limit', '200');
  const [{ jobs }, failed] = await Promise.all([
    api(`/v1/jobs?${q}`),
    params.get('failed') ? api('/v1/states?failed=true&limit=10000') : Promise.resolve(null),
  ]);
  const failedJids = failed ? new Set(failed.states.map((s) => s.jid)) : null;
  const user = params.get('user');
  const shown = jobs.filter((j) => (!failedJids || failedJids.has(j.jid)) && (!user || j.user === user));
  const field = (name, placeholder, type = 'text') => h('input', { name, placeholder, type, value: params.get(name) ?? '', 'aria-label': placeholder });
  const inputs = [
    field('function', 'function'),
    field('target', 'target'),
    field('minion', 'minion'),
    field('user', 'user'),
    field('since', 'since (ISO time)'),
    field('until', 'until (ISO time)'),
  ];
  const failedBox = h('input', { type: 'checkbox', name: 'failed', checked: !!params.get('failed') });
  show(
    h('h1', {}, 'Jobs'),
    h(
      'form',
      {
        class: 'row',
        onsubmit: (ev) => {
          ev.preventDefault();
          const p = new URLSearchParams();
          for (const i of inputs) if (i.value) p.set(i.name, i.value);
          if (failedBox.checked) p.set('failed', '1');
          location.hash = `#/jobs?${p}`;
        },
      },
      inputs,
      h('label', {}, failedBox, ' failed only'),
      h('button', { type: 'submit' }, 'Search'),
    ),
    table(
      ['Job', 'Function', 'Target', narrow('User'), narrow('Started'), 'Returned'],
      shown.map((j) =>
        h(
          'tr',
          { class: 'clickable', onclick: () => (location.hash = `#/job/${j.jid}`) },
          h('td', { class: 'mono jid' }, h('a', { href: `#/job/${j.jid}` }, j.jid)),
          h('td', {}, h('div', {}, j.fun, ' ', h('span', { class: 'muted' }, jobArgs(j))), dryRunPill(j)),
          h('td', {}, Array.isArray(j.target) ? j.target.join(',') : j.target),
          h('td', { class: 'hide-narrow' }, j.user),
          h('td', { class: 'hide-narrow' }, time(j.created_at)),
          h('td', {}, `${j.returned}/${j.expected.length}`),
        ),
      ),
    ),
  );
}

function eventsView(params) {
  const tag = params.get('tag') ?? '*';
  const input = h('input', { name: 'tag', value: tag, 'aria-label': 'tag filter' });
  const rows = h('tbody');
  const status = h('p', { id: 'events-status', class: 'muted', role: 'status' }, `Connecting to the event bus…`);
  show(
    h('h1', {}, 'Events'),
    h(
      'form',
      {
        class: 'row',
        onsubmit: (ev) => {
          ev.preventDefault();
          location.hash = `#/events?tag=${encodeURIComponent(input.value || '*')}`;
        },
      },
      input,
      h('button', { type: 'submit' }, 'Filter'),
    ),
    status,
    h('div', { class: 'table-wrap' }, h('table', {}, h('thead', {}, h('tr', {}, h('th', {}, 'Time'), h('th', {}, 'Tag'), h('th', {}, 'Data'))), rows)),
  );
  stream = new EventSource(`/v1/events?tag=${encodeURIComponent(tag)}`);
  // an empty table reads as "nothing happened" only when the page says it is listening
  stream.addEventListener('open', () => (status.textContent = `Listening for ${tag} events; new ones appear at the top.`));
  stream.addEventListener('error', () => (status.textContent = 'Lost the event bus; reconnecting…'));
  stream.addEventListener('brine', (e) => {
    const ev = JSON.parse(e.data);
    rows.prepend(
      h(
        'tr',
        {},
        h('td', { class: 'muted' }, new Date(ev.stamp).toLocaleTimeString()),
        h('td', { class: 'mono' }, ev.tag),
        h('td', {}, h('pre', { class: 'mono' }, JSON.stringify(ev.data).slice(0, 2000))),
      ),
    );
    while (rows.children.length > 500) rows.lastChild.remove();
  });
}

// ---- audit ------------------------------------------------------------------------------

async function auditView(params) {
  const q = new URLSearchParams();
  for (const k of ['user', 'action', 'since']) if (params.get(k)) q.set(k, params.get(k));
  const { audit } = await api(`/v1/audit?${q}`);
  const field = (name, label) => h('input', { name, value: params.get(name) ?? '', placeholder: label, 'aria-label': label });
  const fields = [field('user', 'user'), field('action', 'action (job, key, signin, token…)'), field('since', 'since (ISO time)')];
  show(
    h('h1', {}, 'Audit trail'),
    h(
      'form',
      {
        class: 'row',
        onsubmit: (ev) => {
          ev.preventDefault();
          const p = new URLSearchParams();
          for (const f of fields) if (f.value) p.set(f.name, f.value);
          location.hash = `#/audit?${p}`;
        },
      },
      fields,
      h('button', { type: 'submit' }, 'Filter'),
    ),
    table(
      ['Time', 'User', 'Source', 'Action', 'Target', 'Outcome', 'Arguments'],
      audit.map((a) =>
        h(
          'tr',
          {},
          h('td', { class: 'muted' }, time(a.at)),
          h('td', {}, a.username),
          h('td', { class: 'mono' }, a.source),
          h('td', { class: 'mono' }, a.action),
          h('td', { class: 'mono' }, a.target ?? '—'),
          h('td', { class: a.outcome === 'ok' ? 'ok' : 'bad' }, a.outcome),
          h('td', {}, h('pre', { class: 'mono' }, JSON.stringify(a.args).slice(0, 500))),
        ),
      ),
    ),
  );
}

// ---- routing ----------------------------------------------------------------------------

async function route() {
  stream?.close();
  stream = undefined;
  const [path, query] = location.hash.replace(/^#/, '').split('?');
  const params = new URLSearchParams(query ?? '');
  const parts = (path || '/minions').split('/').filter(Boolean).map(decodeURIComponent);
  for (const a of document.querySelectorAll('nav a')) a.classList.toggle('active', a.getAttribute('href') === `#/${parts[0]}`);
  try {
    if (!csrf) csrf = (await api('/ui/session')).csrf;
    document.getElementById('nav').hidden = false;
    switch (parts[0]) {
      case 'minion':
        return await minionView(parts[1]);
      case 'keys':
        return await keysView();
      case 'run':
        return runView();
      case 'job':
        return await jobView(parts[1], params);
      case 'jobs':
        return await jobsView(params);
      case 'events':
        return eventsView(params);
      case 'audit':
        return await auditView(params);
      default:
        return await minionsView(params);
    }
  } catch (e) {
    if (e instanceof Unauthorized) return loginView();
    show(h('div', { class: 'error', role: 'alert' }, e.message));
  }
}

document.getElementById('logout').addEventListener('click', async () => {
  await api('/ui/logout', { method: 'POST', body: {} }).catch(() => undefined);
  csrf = '';
  loginView('Signed out.');
});
window.addEventListener('hashchange', route);
route();
