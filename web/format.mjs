// Pure formatting for the Pulse tab: times, durations, sizes and the status
// words. Times are shown in UTC, the zone the core writes its alarm sentences
// in ("last reading 17 Sep"), so the card and its sentences never disagree.

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

export const STATUS_WORDS = {
  on_track: 'On track',
  at_risk: 'At risk',
  off_track: 'Off track',
  not_measured: 'Not measured',
  no_goal: 'No goal',
};

export function statusWord(status) {
  return STATUS_WORDS[status] || (status ? String(status).replace(/_/g, ' ') : 'Unknown');
}

// 'YYYY-MM-DDTHH:MM:SSZ' (or any Date-parsable text) → milliseconds; NaN when empty.
export function parseTime(text) {
  if (text === undefined || text === null || text === '') return NaN;
  if (typeof text === 'number') return text;
  return Date.parse(text);
}

// '17 Sep 09:30' (UTC); with the year when it differs from `refMs`'s year.
export function formatTime(text, refMs) {
  const ms = parseTime(text);
  if (Number.isNaN(ms)) return '—';
  const d = new Date(ms);
  const day = `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]}`;
  const hm = `${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')}`;
  const year = refMs !== undefined && !Number.isNaN(refMs) && new Date(refMs).getUTCFullYear() !== d.getUTCFullYear()
    ? ` ${d.getUTCFullYear()}` : '';
  return `${day}${year} ${hm}`;
}

export function formatDay(text) {
  const ms = parseTime(text);
  if (Number.isNaN(ms)) return '—';
  const d = new Date(ms);
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

// A span in plain words: '45 s', '12 min', '3 h 5 min', '4 days'.
export function formatSpan(ms) {
  if (Number.isNaN(ms) || ms === undefined || ms === null) return '—';
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const min = Math.floor(s / 60);
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 48) return min % 60 ? `${h} h ${min % 60} min` : `${h} h`;
  const days = Math.floor(h / 24);
  return `${days} days`;
}

// A duration in the same words as formatSpan, with seconds below a minute
// ('under 1 s', '41 s', '3 min 10 s', '3 h 50 min').
export function formatDuration(ms) {
  if (ms === null || ms === undefined || Number.isNaN(ms)) return '';
  if (ms < 1000) return 'under 1 s';
  const s = Math.round(ms / 1000);
  if (s >= 60 && s < 3600 && s % 60) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return formatSpan(ms);
}

// '0.007s', '41s', '3m10s', '1h2m', '90' (seconds) → milliseconds; null when not a duration.
export function parseDurationText(text) {
  if (text === undefined || text === null || text === '') return null;
  if (typeof text === 'number') return text * 1000;
  const t = String(text).trim();
  if (/^\d+(\.\d+)?$/.test(t)) return Number(t) * 1000;
  const m = /^(?:(\d+)h)?\s*(?:(\d+)m(?!s))?\s*(?:(\d+(?:\.\d+)?)s)?\s*(?:(\d+)ms)?$/.exec(t);
  if (!m || !m[0]) return null;
  return ((Number(m[1] || 0) * 60 + Number(m[2] || 0)) * 60 + Number(m[3] || 0)) * 1000 + Number(m[4] || 0);
}

// How long ago `text` was, seen from `nowMs`: '3 days ago'.
export function ago(text, nowMs) {
  const ms = parseTime(text);
  if (Number.isNaN(ms)) return '—';
  return `${formatSpan(nowMs - ms)} ago`;
}

export function formatBytes(n) {
  if (n === undefined || n === null || Number.isNaN(n)) return '—';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 * 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024 / 1024 / 1024).toFixed(2)} GB`;
}

export function formatNumber(v) {
  if (v === undefined || v === null || v === '') return '—';
  const n = Number(v);
  if (Number.isNaN(n)) return String(v);
  return n.toLocaleString('en-GB', { maximumFractionDigits: 2 });
}

// The ?now= parameter (RFC 3339) → seconds since the epoch, or undefined for
// the real clock. A value that does not parse is reported, not ignored.
export function parseNowParam(text) {
  if (!text) return { seconds: undefined, error: '' };
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) return { seconds: undefined, error: `now: "${text}" is not a time (use 2026-10-07T12:00:00Z)` };
  return { seconds: Math.floor(ms / 1000), error: '' };
}

export function isoSeconds(seconds) {
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

// The name a new copy gets: the workflow folder's name, else the file's name
// without its extension; made unique among `existing` so an import never
// replaces another copy.
export function copyNameFor(baseName, existing) {
  let base = String(baseName || 'workflow').replace(/(\.(sqlite3?|db))+$/i, '').replace(/-journal$/, '').replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '') || 'workflow';
  if (base.length > 60) base = base.slice(0, 60);
  const taken = new Set(existing);
  if (!taken.has(base)) return base;
  for (let i = 2; ; i++) {
    const name = `${base}-${i}`;
    if (!taken.has(name)) return name;
  }
}
