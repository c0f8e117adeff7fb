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
// <view> is a card's id (needs-you, agent-log, …): the page scrolls to it;
// or `inspect` (web/inspect/), whose own state follows a `?` (the table,
// filters, query: `query` below). The mode is read from the address, never
// kept beside it, so the mode bar and what the pane shows cannot disagree.

export const VIEWS = ['goal-status', 'readings', 'routes', 'needs-you', 'decision-log', 'messages', 'memory', 'agent-log'];

const part = (s) => {
  try { return decodeURIComponent(s); } catch { return s; }
};

// '#/w/substack/agent-log' → {mode: 'server', open: {kind: 'server', name: 'substack'}, view: 'agent-log'}
export function parseRoute(hash) {
  const [where, query = ''] = String(hash || '').replace(/^#/, '').split(/\?(.*)/s);
  const path = where.replace(/^\/+/, '').split('/').filter(Boolean).map(part);
  if (path[0] === 'w' && path[1]) return { mode: 'server', open: { kind: 'server', name: path[1] }, view: path[2] || '', query };
  if (path[0] === 'copy' && path[1]) return { mode: 'local', open: { kind: 'local', name: path[1] }, view: path[2] || '', query };
  if (path[0] === 'local') return { mode: 'local', open: null, view: '' };
  if (path[0] === 'server') return { mode: 'server', open: null, view: '' };
  return { mode: null, open: null, view: '' };
}

export function routeHash({ mode, open, view, query }) {
  if (open) {
    const base = `#/${open.kind === 'server' ? 'w' : 'copy'}/${encodeURIComponent(open.name)}`;
    return view ? `${base}/${encodeURIComponent(view)}${query ? `?${query}` : ''}` : base;
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

// Worst first: a workflow that cannot be read, then off track, not
// measured, at risk, on track, no goal. The CLI's `pulse status` sorts the
// same way.
export const STATUS_RANK = { error: 0, off_track: 1, not_measured: 2, at_risk: 3, on_track: 4, no_goal: 5 };

export function worstFirst(rows) {
  const rank = (r) => (STATUS_RANK[r.status] !== undefined ? STATUS_RANK[r.status] : 0);
  return [...rows].sort((a, b) => rank(a) - rank(b) || (b.pending || 0) - (a.pending || 0) || a.name.localeCompare(b.name));
}
