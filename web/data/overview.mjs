// The overview's rows: every workflow (server) or copy (this browser) with
// its goal status, key number, worst alarm, pending decisions and the last
// recorded check, from the same core methods the cards use.
import { worstFirst } from './route.mjs';

const errorText = (err) => err.message || String(err);

function rowFrom(name, kind, check, decisions, last, workflow) {
  const m = (check && check.metric) || {};
  const alarms = (check && Array.isArray(check.alarms)) ? check.alarms : [];
  const pending = decisions && Array.isArray(decisions.decisions)
    ? decisions.decisions.filter((d) => d.status === 'pending').length : null;
  return {
    name,
    kind,
    workflow: workflow || (check && check.workflow) || '',
    status: (check && check.status) || 'error',
    metric: m.name || '',
    value: m.value,
    target: m.target,
    worstAlarm: alarms.length ? alarms[0].message : '',
    alarms: alarms.length,
    pending,
    lastCheck: last && last.checked_at ? last.checked_at : null,
    error: '',
  };
}

// One call that may be missing from an older core: null instead of a failure.
const optional = (p) => p.catch(() => null);

export async function loadLocalOverview(store, copies, nowSeconds) {
  const rows = [];
  for (const c of copies) {
    try {
      const check = await store.call(c.name, 'goal.check', {}, nowSeconds);
      const decisions = await optional(store.call(c.name, 'decision.list', { status: 'pending' }, nowSeconds));
      const last = await optional(store.call(c.name, 'goal.last_check', {}, nowSeconds));
      rows.push(rowFrom(c.name, 'local', check, decisions, last, c.workflow));
    } catch (err) {
      rows.push({ name: c.name, kind: 'local', status: 'error', error: errorText(err), pending: null });
    }
  }
  return worstFirst(rows);
}

export async function loadServerOverview(api, workflows) {
  const rows = await Promise.all(workflows.map(async (w) => {
    const name = w.workflow || w.name;
    if (w.error) return { name, kind: 'server', status: 'error', error: w.error, pending: null };
    const decisions = await optional(api.call(name, 'decision.list', { status: 'pending' }));
    const last = await optional(api.call(name, 'goal.last_check', {}));
    return rowFrom(name, 'server', w.goal_status || { status: w.status }, decisions, last, name);
  }));
  return worstFirst(rows);
}
