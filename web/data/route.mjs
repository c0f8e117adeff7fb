// The tab's address: one URL per workflow and view, in the fragment so any
// static server (and `pulse serve`) serves the same page for all of them, and
// back/forward move between them.
//
//   #/              the overview of the default mode (the server's workflows
//                   when a `pulse serve` answers, else this browser's copies)
//   #/server        the server's workflows        #/local   this browser's copies
//   #/w/<slug>[/<view>]      a workflow on the server (mode Server)
//   #/copy/<name>[/<view>]   a copy in this browser (mode Local copy)
//
// <view> is a card's id (needs-you, agent-log, …): the page scrolls to it,
// unfolded. A card's filters follow a "?" (`#/w/substack/agent-log?status=
// running&stuck=30`, `#/w/substack/readings?range=30d`): a reload or a
// shared link lands on the same card with the same filters. Or <view> is
// `inspect` (web/inspect/), whose own state follows the "?" the same way
// (the table, filters, query), kept as written in `query`.
// The mode is read from the address, never kept beside it, so the mode bar
// and what the pane shows cannot disagree.

export const VIEWS = ['goal-status', 'readings', 'routes', 'needs-you', 'decision-log', 'messages', 'memory', 'agent-log'];

// The cards by id, with the title the page's title names.
export const CARD_TITLES = {
  'needs-you': 'What needs you', 'goal-status': 'Goal status', 'focus-areas': 'Focus areas', 'goal-facts': 'Since the last check',
  'run-health': 'Run health', readings: 'Readings', routes: 'Runs by route', 'decision-log': 'Decision log',
  'talk-to-pulse': 'Talk to Pulse', 'pulse-chat': 'Pulse chat', messages: 'Messages to you', requests: "Pulse's requests",
  schedules: 'Schedules', memory: 'Goal memory', 'agent-log': 'Background agent log', inspect: 'Inspect',
};

// "?status=running&stuck=30" → {status: 'running', stuck: '30'}; [] parts dropped.
function parseParams(text) {
  const out = {};
  for (const [k, v] of new URLSearchParams(text || '')) if (v !== '') out[k] = v;
  return out;
}

// The page's title: the workflow and the card ("agent-log · substack · Pulse").
export function routeTitle(route) {
  if (!route.open) return route.mode === 'local' ? 'Copies in this browser · Pulse' : 'Workflows · Pulse';
  const card = CARD_TITLES[route.view];
  return `${card ? `${card} · ` : ''}${route.open.name} · Pulse`;
}

const part = (s) => {
  try { return decodeURIComponent(s); } catch { return s; }
};

// '#/w/substack/agent-log' → {mode: 'server', open: {kind: 'server', name: 'substack'}, view: 'agent-log'}
export function parseRoute(hash) {
  const [where, query = ''] = String(hash || '').replace(/^#/, '').split(/\?(.*)/s);
  const path = where.replace(/^\/+/, '').split('/').filter(Boolean).map(part);
  const params = parseParams(query);
  if (path[0] === 'w' && path[1]) return { mode: 'server', open: { kind: 'server', name: path[1] }, view: path[2] || '', params, query };
  if (path[0] === 'copy' && path[1]) return { mode: 'local', open: { kind: 'local', name: path[1] }, view: path[2] || '', params, query };
  if (path[0] === 'local') return { mode: 'local', open: null, view: '' };
  if (path[0] === 'server') return { mode: 'server', open: null, view: '' };
  return { mode: null, open: null, view: '' };
}

// `query` (a string, as Inspect keeps it) is written as it is; else `params`
// (an object) is encoded, its empty values left out.
export function routeHash({ mode, open, view, params, query }) {
  if (open) {
    const base = `#/${open.kind === 'server' ? 'w' : 'copy'}/${encodeURIComponent(open.name)}`;
    const q = typeof query === 'string' ? query
      : new URLSearchParams(Object.entries(params || {}).filter(([, v]) => v !== undefined && v !== null && v !== '' && v !== false)).toString();
    return `${view ? `${base}/${encodeURIComponent(view)}` : base}${view && q ? `?${q}` : ''}`;
  }
  return mode ? `#/${mode}` : '#/';
}

// The older query parameters (?mode=, ?copy=) as an address, for links
// made before the tab had one.
export function routeFromQuery(params) {
  if (params.get('copy')) return `#/copy/${encodeURIComponent(params.get('copy'))}`;
  if (params.get('mode') === 'local' || params.get('mode') === 'server') return `#/${params.get('mode')}`;
  return '';
}

// Worst first: a workflow that cannot be read, then by the attention rank
// the core gives each workflow (1 critical: off track, not measured or a
// critical item such as an expired login; 2 needs attention: at risk or a
// warning item; 3 on track; 4 no goal: core/attention/attention.h), then off
// track, not measured, at risk, on track, no goal. The CLI's `pulse status`
// sorts the same way.
export const STATUS_RANK = { error: 0, off_track: 1, not_measured: 2, at_risk: 3, on_track: 4, no_goal: 5 };

export function worstFirst(rows) {
  const status = (r) => (STATUS_RANK[r.status] !== undefined ? STATUS_RANK[r.status] : 0);
  const rank = (r) => (r.status === 'error' ? 0 : typeof r.rank === 'number' ? r.rank : status(r));
  const open = (r) => (r.attention ? r.attention.open : 0);
  return [...rows].sort((a, b) => rank(a) - rank(b) || status(a) - status(b) || open(b) - open(a)
    || (b.pending || 0) - (a.pending || 0) || a.name.localeCompare(b.name));
}

// Needs attention: the core's rank says so (critical or warning), or, from
// an older core without it, a goal status other than on track or no goal.
export const needsAttention = (r) => (typeof r.rank === 'number' ? r.rank <= 2 : r.status !== 'on_track' && r.status !== 'no_goal');
