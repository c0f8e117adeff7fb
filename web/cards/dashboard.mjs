// The dashboard of one open workflow: every card, from one source
// (data/sources.mjs), with the owner's actions (answer a decision, snooze an
// attention item, save the goal memory) sent back through the same source.
// It starts with what matters: "What needs you" (the attention items with
// their causes, the decisions waiting), then the goal card; the cards after
// them are folded to their title and summary until opened (their address
// opens them), so the page is short, and the agent log ends it.
import { html } from 'htm/preact';
import { useState, useEffect, useLayoutEffect, useRef, useCallback } from 'preact/hooks';
import { CardError, CardLoading } from './card.mjs';
import { GoalStatusCard, ReadingsCard, RunsByRouteCard } from './goal.mjs';
import { FactsCard } from './facts.mjs';
import { RunHealthCard } from './run-health.mjs';
import { NeedsYouCard, DecisionLogCard } from './decisions.mjs';
import { GoalMemoryCard } from './memory.mjs';
import { FocusAreasCard } from './focus.mjs';
import { SchedulesCard } from './schedules.mjs';
import { RequestsCard } from './requests.mjs';
import { AgentLogCard } from './agent-log.mjs';
import { MessagesCard } from './messages.mjs';
import { TalkToPulseCard, PulseChatCard } from './conversation.mjs';
import { CARD_METHODS, readAgentLog } from '../data/sources.mjs';
import { formatTime, isoSeconds } from '../format.mjs';

const errorText = (err) => err.message || String(err);

// The documents of the cards, by key; `load(keys?)` (re)reads some or all.
function useCardDocs(source, nowSeconds) {
  const [docs, setDocs] = useState({});
  const [errors, setErrors] = useState({});
  const gen = useRef(0);
  const put = (key, doc, err) => {
    if (doc !== undefined) setDocs((d) => ({ ...d, [key]: doc }));
    setErrors((e) => ({ ...e, [key]: err || '' }));
  };
  const load = useCallback(async (which) => {
    const g = ++gen.current;
    const jobs = CARD_METHODS.filter(([key]) => !which || which.includes(key));
    // The goal status first: it is what the owner reads first, and a
    // workflow that is not there is one answer, not one error per card.
    performance.mark('pulse:cards-requested');
    const run = async ([key, method, args]) => {
      try {
        const doc = await source.call(method, args(), nowSeconds);
        if (key === 'check') performance.mark('pulse:goal-check-answered');
        if (g !== gen.current && which === undefined) return;
        put(key, doc);
      } catch (err) {
        put(key, undefined, errorText(err));
        return err;
      }
      return null;
    };
    const first = jobs.find(([key]) => key === 'check');
    const failed = first ? await run(first) : null;
    if (failed && notFound(errorText(failed))) return;
    await Promise.all(jobs.filter((j) => j !== first).map(run));
  }, [source, nowSeconds]);
  useEffect(() => { setDocs({}); setErrors({}); load(); }, [load]);
  return { docs, errors, load, put };
}

// The agent log's filters live in the address (`?status=running&stuck=30`):
// a reload or a shared link shows the same rows.
export function agentFiltersFromParams(p = {}) {
  return {
    groupBy: p.group === 'run' ? 'run' : 'session',
    period: ['24h', '7d', '30d', 'all'].includes(p.period) ? p.period : '7d',
    session: p.session || '', run: p.run || '', status: p.status || '',
    stuckOnly: p.stuckonly === '1', stuckAfter: /^[1-9]\d{0,5}$/.test(p.stuck || '') ? p.stuck : '',
  };
}

export function agentFiltersToParams(f) {
  return {
    group: f.groupBy === 'run' ? 'run' : '', period: f.period && f.period !== '7d' ? f.period : '',
    session: f.session || '', run: f.run || '', status: f.status || '', stuckonly: f.stuckOnly ? '1' : '',
    stuck: f.stuckAfter || '',
  };
}

// The agent log card's document under its filters, and the sessions and
// runs its filter lists offer (from the unfiltered read).
function useAgentLog(source, nowSeconds, put, filters) {
  const [allAgents, setAllAgents] = useState({ sessions: [], runs: [] });
  const loadAgents = useCallback(async (f) => {
    try {
      const doc = await readAgentLog(source, f, nowSeconds);
      put('agents', doc);
      if (!f.session && !f.run && !f.status) {
        const rows = (doc && doc.rows) || [];
        setAllAgents({
          sessions: [...new Set(rows.map((r) => r.session_id).filter(Boolean))],
          runs: [...new Set(rows.map((r) => r.pulse_run_id).filter(Boolean))],
        });
      }
    } catch (err) {
      put('agents', undefined, errorText(err));
    }
  }, [source, nowSeconds]);
  const key = JSON.stringify(filters);
  useEffect(() => { loadAgents(filters); }, [loadAgents, key]);
  // The page before the oldest shown, put in front of the rows shown.
  const loadOlder = useCallback(async (doc) => {
    if (!doc || !doc.next_cursor) return;
    try {
      const older = await readAgentLog(source, filters, nowSeconds, doc.next_cursor);
      put('agents', { ...older, rows: [...older.rows, ...doc.rows], stuck: (older.stuck || 0) + (doc.stuck || 0) });
    } catch (err) {
      put('agents', undefined, errorText(err));
    }
  }, [source, nowSeconds, key]);
  return { allAgents, loadOlder };
}

// What became of the apply message the server sends to the Builder chat
// after an Accept or Change (the local copy sends none).
export function applyNote(answered) {
  const apply = answered && answered.apply;
  if (!apply || !apply.sent) return '';
  if (apply.delivered) return ` Sent to the Builder chat ${apply.builder_session_id} to apply.`;
  // No Builder is connected (pulse serve --builder): say plainly what happened.
  if (/no Builder command/.test(apply.reason || '')) {
    return ' Recorded; the apply message waits in the outbox until a Builder is connected (pulse serve --builder).';
  }
  // The server's reason already says where the message waits; said once here.
  const why = (apply.reason || '').replace(/^undelivered: /, '').replace(/;\s*the message waits in the outbox\.?$/, '');
  return ` The apply message waits in the outbox, undelivered: ${why}.`;
}

// "Answered: <question>." without a second mark after a question's own.
function answeredLine(question) {
  return `Answered: ${question}${/[.?!]$/.test(question) ? '' : '.'}`;
}

// Saving the goal memory: a save refused because the memory changed
// meanwhile (stale base hash) reads the memory again, and the card offers to
// merge or start again.
function useMemorySave(source, nowSeconds, load, onChanged, setNotice) {
  const [memError, setMemError] = useState('');
  const [saving, setSaving] = useState(false);
  const [memConflict, setMemConflict] = useState(false);
  const onSaveMemory = async (text, doc) => {
    setSaving(true);
    setMemError('');
    try {
      await source.call('memory.save', { text, base_hash: doc && (doc.hash || doc.base_hash) }, nowSeconds);
      setMemConflict(false);
      await load(['memory']);
      if (onChanged) onChanged();
      setNotice('Goal memory saved.');
      return true;
    } catch (err) {
      if (err.status === 409 || err.code === 'conflict' || /changed since it was loaded/.test(errorText(err))) {
        setMemConflict(true);
        await load(['memory']);
      }
      setMemError(`Not saved: ${errorText(err)}`);
      return false;
    } finally {
      setSaving(false);
    }
  };
  return { memError, saving, onSaveMemory, memConflict, dropMemConflict: () => { setMemConflict(false); setMemError(''); } };
}

// Snooze or lift the snooze of one attention item; true when it went through.
function useSnooze(source, nowSeconds, load, onChanged, setNotice) {
  const [snoozeKey, setSnoozeKey] = useState('');
  const snoozeCall = async (item, method, args, done) => {
    setSnoozeKey(item.key);
    setNotice('');
    try {
      await source.call(method, { key: item.key, ...args }, nowSeconds);
      await load(['check']);
      setNotice(done);
      if (onChanged) onChanged();
      return true;
    } catch (err) {
      setNotice(`Could not change the snooze: ${errorText(err)}`);
      return false;
    } finally {
      setSnoozeKey('');
    }
  };
  return {
    busyKey: snoozeKey,
    onSnooze: (item, until) => snoozeCall(item, 'attention.snooze', until ? { until: isoSeconds(until) } : {},
      `Snoozed ${until ? `until ${formatTime(isoSeconds(until))} UTC` : 'until it changes'}: ${item.text}`),
    onUnsnooze: (item) => snoozeCall(item, 'attention.unsnooze', {}, `No longer snoozed: ${item.text}`),
  };
}

// The owner's actions: answering a decision, recording a result, focus areas.
function useActions(source, nowSeconds, load, onChanged) {
  const [busyId, setBusyId] = useState(null);
  const [notice, setNotice] = useState('');
  const noticeRef = useRef(null);
  const memory = useMemorySave(source, nowSeconds, load, onChanged, setNotice);
  const snooze = useSnooze(source, nowSeconds, load, onChanged, setNotice);
  const onAnswer = async (d, answer) => {
    setBusyId(d.id);
    setNotice('');
    try {
      const answered = await source.call('decision.answer', { id: d.id, ...answer }, nowSeconds);
      setNotice(`${answeredLine(d.question)}${applyNote(answered)}`);
      await load(['decisions', 'memory', 'check']);
      // The answered item is gone: keep the keyboard user's place on the notice.
      if (noticeRef.current) noticeRef.current.focus();
      if (onChanged) onChanged();
    } catch (err) {
      setNotice(`Could not answer: ${errorText(err)}`);
    } finally {
      setBusyId(null);
    }
  };
  // The owner records what came of an answered decision.
  const onOutcome = async (d, result) => {
    setBusyId(d.id);
    setNotice('');
    try {
      await source.call('decision.outcome', { id: d.id, result }, nowSeconds);
      setNotice(`Result recorded: ${d.question}`);
      // A result is also a goal-memory entry.
      await load(['decisions', 'memory']);
      if (onChanged) onChanged();
      return true;
    } catch (err) {
      setNotice(`Could not record the result: ${errorText(err)}`);
      return false;
    } finally {
      setBusyId(null);
    }
  };
  // The owner's focus-area change; true when it went through.
  const [focusBusy, setFocusBusy] = useState(false);
  const [focusError, setFocusError] = useState('');
  const onFocus = async (change) => {
    setFocusBusy(true);
    setFocusError('');
    try {
      await source.call('focus.change', change, nowSeconds);
      const done = { confirm: 'confirmed', reject: 'rejected', drop: 'dropped', extend: 'extended', add: 'added' };
      setNotice(`Focus area ${change.id || `"${change.title}"`} ${done[change.action] || change.action}`);
      await load(['focus', 'memory']);
      if (onChanged) onChanged();
      return true;
    } catch (err) {
      setFocusError(`Not changed: ${errorText(err)}`);
      return false;
    } finally {
      setFocusBusy(false);
    }
  };
  return { busyId, notice, noticeRef, onAnswer, onOutcome, onFocus, focusBusy, focusError, setNotice, snooze, ...memory };
}

// The owner's after-run checkboxes: one row's three options at once.
function useAfterRun(source, nowSeconds, load, setNotice) {
  // The owner's after-run checkboxes: one row's three options at once.
  const [afterBusy, setAfterBusy] = useState(false);
  const [afterError, setAfterError] = useState('');
  const onAfterRun = async (schedule, after) => {
    setAfterBusy(true);
    setAfterError('');
    try {
      await source.call('schedule.after_run', { schedule, ...after }, nowSeconds);
      setNotice(`After-run options saved for ${schedule === 'manual' ? 'manual runs' : `schedule ${schedule}`}`);
      await load(['module']);
      return true;
    } catch (err) {
      setAfterError(`Not saved: ${errorText(err)}`);
      return false;
    } finally {
      setAfterBusy(false);
    }
  };
  return { onAfterRun, afterBusy, afterError };
}

// Check now: the goal-check turn runs on the server in the background; its
// row in the agent log says when it has ended. `report(text)` gets the line
// to show, once when it starts and once when it is done (or still running
// after two minutes).
async function checkNow(source, nowSeconds, load, report) {
  const out = await source.call('turn.goal_check', {}, nowSeconds);
  const turn = (out && out.turn) || {};
  const started = Date.now();
  const poll = async () => {
    const doc = await source.call('agent_log.show', { session: turn.session, limit: 50 }, nowSeconds).catch(() => null);
    const row = doc && Array.isArray(doc.rows) ? doc.rows.find((r) => r.agent_id === turn.agent) : null;
    if (row && row.status !== 'running') {
      await load(['messages', 'check', 'decisions', 'conversation']);
      const when = row.completed_at ? ` at ${formatTime(row.completed_at)} UTC` : '';
      const result = String(row.error || row.result || '').split('\n')[0].replace(/[.!?]+$/, '');
      report(row.status === 'completed'
        ? `Goal check done${when}${result ? `: ${result}` : ''}. Any message it sent is listed below.`
        : `Goal check ${row.status}${when}${result ? `: ${result}` : ''}.`, true);
      return;
    }
    if (Date.now() - started > 120000) { report('The goal check is still running after two minutes; its message appears here when it is done.', true); return; }
    setTimeout(poll, 700);
  };
  setTimeout(poll, 300);
  return `Goal check started${turn.started_at ? ` at ${formatTime(turn.started_at)} UTC` : ''}…`;
}

// The cards below "What needs you" and the goal card, in order; folded
// until opened, except the agent log, which ends the page.
const FOLDED = ['focus-areas', 'goal-facts', 'run-health', 'readings', 'routes', 'decision-log', 'talk-to-pulse', 'pulse-chat',
  'messages', 'requests', 'schedules', 'memory'];

function useFolds(view, key) {
  const [open, setOpen] = useState(() => new Set(view ? [view] : []));
  // A card's address opens it.
  useEffect(() => { if (view && !open.has(view)) setOpen((o) => new Set([...o, view])); }, [view, key]);
  return (id) => (FOLDED.includes(id) ? {
    open: open.has(id),
    toggle: () => setOpen((o) => { const n = new Set(o); if (n.has(id)) n.delete(id); else n.add(id); return n; }),
  } : undefined);
}

// Talk to Pulse: the turn runs in the background; the chat is read again
// until Pulse has answered, and the chat comes into view.
function talkToPulse(source, nowSeconds, put, load) {
  return async (text) => {
    const out = await source.call('turn.ask_pulse', { text }, nowSeconds);
    const chat = document.getElementById('pulse-chat');
    if (chat) chat.scrollIntoView({ block: 'start' });
    const started = Date.now();
    const poll = async () => {
      const doc = await source.call('conversation.show', {}, nowSeconds).catch(() => null);
      if (doc) put('conversation', doc);
      // Done once this turn (by its run id) is in the chat and has ended.
      const mine = doc && (doc.turns || []).find((t) => out && out.turn && t.pulse_run_id === out.turn.pulse_run_id);
      if ((!mine || mine.state === 'running') && Date.now() - started < 120000) setTimeout(poll, 1000);
      else load(['conversation', 'messages', 'memory', 'focus', 'decisions']);
    };
    setTimeout(poll, 500);
    return `Sent${out && out.turn && out.turn.started_at ? ` at ${formatTime(out.turn.started_at)} UTC` : ''}: Pulse's reply appears in the Pulse chat.`;
  };
}

// An unknown workflow: one page that says so and lists the ones there are.
export function NoSuchWorkflow({ name, error, rows, linkFor }) {
  const list = Array.isArray(rows) ? rows : [];
  return html`<section class="card no-such" id="no-such-workflow" aria-labelledby="no-such-title">
    <header class="card-head"><h2 id="no-such-title">No workflow named “${name}”</h2></header>
    <p>${String(error || '').replace(/^[A-Z]+ \/api\/\S+: /, '')}</p>
    ${list.length ? html`<p>The workflows here:</p><ul class="no-such-list">${list.map((r) => html`<li><a href=${linkFor(r.name)}>${r.name}</a></li>`)}</ul>`
      : html`<p><a href="#/">See the workflows</a>.</p>`}
  </section>`;
}

// The server's 404 for a workflow it does not have (server-shim/http:
// 'workflow "x" does not exist in this workspace').
const notFound = (err) => /no such workflow|does not exist in this workspace|not found|\(404\)|HTTP 404/i.test(err || '');

export function Dashboard({ source, nowSeconds, readOnly, onChanged, view, params, onParams, linkFor, knownRows, workflowLink }) {
  const { docs, errors, load, put } = useCardDocs(source, nowSeconds);
  const filters = agentFiltersFromParams(view === 'agent-log' ? params : {});
  const latestFilters = useRef(filters);
  const filtersKey = useRef(JSON.stringify(filters));
  const { allAgents, loadOlder } = useAgentLog(source, nowSeconds, put, filters);
  const a = useActions(source, nowSeconds, load, onChanged);
  const after = useAfterRun(source, nowSeconds, load, a.setNotice);
  const fold = useFolds(view, source);
  // For bench/web_open.mjs: when the goal status card first shows.
  useLayoutEffect(() => {
    if (docs.check || errors.check) requestAnimationFrame(() => performance.mark('pulse:goal-card-shown'));
  }, [!!docs.check, !!errors.check]);

  const [checkNote, setCheckNote] = useState('');
  const onCheckNow = () => checkNow(source, nowSeconds, load, (text) => setCheckNote(text));
  // Opening a goal workflow on the server begins its Pulse conversation (the
  // owner's tab only; a copy or a reader just reads).
  useEffect(() => {
    if (source.kind !== 'server' || readOnly || !docs.check || docs.check.status === 'no_goal') return;
    if (docs.conversation && docs.conversation.exists) return;
    source.call('conversation.open', {}, nowSeconds).then((doc) => put('conversation', doc), () => {});
  }, [source, readOnly, docs.check && docs.check.status, docs.conversation && docs.conversation.exists]);
  const onTalk = talkToPulse(source, nowSeconds, put, load);
  if (errors.check && notFound(errors.check)) {
    return html`<${NoSuchWorkflow} name=${source.label} error=${errors.check} rows=${knownRows} linkFor=${workflowLink} />`;
  }
  const nowMs = (nowSeconds !== undefined ? nowSeconds : Date.now() / 1000) * 1000;
  const card = (key, id, title, body) => (errors[key] ? html`<${CardError} id=${id} title=${title} error=${errors[key]} />`
    : docs[key] === undefined ? html`<${CardLoading} id=${id} title=${title} fold=${fold(id)} />` : body());
  // The agent log's filter changes, merged into the latest filters at once:
  // the address they go into is read back only after the hashchange, and a
  // second change before it must not start from the first one's stale copy.
  latestFilters.current = filtersKey.current === JSON.stringify(filters) ? latestFilters.current : filters;
  filtersKey.current = JSON.stringify(filters);
  const setFilters = (patch) => {
    latestFilters.current = { ...latestFilters.current, ...patch };
    onParams('agent-log', agentFiltersToParams(latestFilters.current));
  };
  const range = ['30d', '90d', 'all'].includes(params && params.range) && view === 'readings' ? params.range : 'all';

  return html`<div class="dashboard">
    <div class="notice" role="status" aria-live="polite" tabindex="-1" ref=${a.noticeRef}>${a.notice}</div>
    ${card('decisions', 'needs-you', 'What needs you', () => html`<${NeedsYouCard} doc=${docs.decisions} nowMs=${nowMs}
        onAnswer=${a.onAnswer} busyId=${a.busyId} readOnly=${readOnly} check=${docs.check} linkFor=${linkFor} snooze=${a.snooze} />`)}
    ${card('check', 'goal-status', 'Goal status', () => html`<${GoalStatusCard} check=${docs.check} nowMs=${nowMs}
      snooze=${readOnly ? null : a.snooze} />`)}
    <div class="folded-cards">
    ${card('focus', 'focus-areas', 'Focus areas', () => html`<${FocusAreasCard} fold=${fold('focus-areas')} doc=${docs.focus} onChange=${a.onFocus}
      busy=${a.focusBusy} error=${a.focusError} readOnly=${readOnly || (source.kind === 'local'
        ? 'Focus areas live in workflow.json: change them on the server or with pulse focus.' : '')} />`)}
    ${docs.check && docs.check.facts ? html`<${FactsCard} fold=${fold('goal-facts')} check=${docs.check} nowMs=${nowMs} />` : null}
    ${docs.check && docs.check.facts ? html`<${RunHealthCard} fold=${fold('run-health')} check=${docs.check} qa=${docs.qa}
      failedRuns=${docs.failedRuns} nowMs=${nowMs} />` : null}
    ${card('readings', 'readings', 'Readings', () => html`<${ReadingsCard} fold=${fold('readings')} doc=${docs.readings} nowMs=${nowMs}
      decisions=${docs.decisions} range=${range} onRange=${(r) => onParams('readings', { range: r === 'all' ? '' : r })} />`)}
    ${card('routes', 'routes', 'Runs by route', () => html`<${RunsByRouteCard} fold=${fold('routes')} doc=${docs.routes} />`)}
    ${card('decisions', 'decision-log', 'Decision log', () => html`<${DecisionLogCard} fold=${fold('decision-log')} doc=${docs.decisions} nowMs=${nowMs}
        onOutcome=${a.onOutcome} busyId=${a.busyId} readOnly=${readOnly} />`)}
    <${TalkToPulseCard} fold=${fold('talk-to-pulse')} local=${source.kind === 'local'} canAct=${!readOnly} onSend=${onTalk}
      hasGoal=${!docs.check || docs.check.status !== 'no_goal'} />
    ${card('conversation', 'pulse-chat', 'Pulse chat', () => html`<${PulseChatCard} fold=${fold('pulse-chat')} doc=${docs.conversation} source=${source}
      nowSeconds=${nowSeconds} />`)}
    ${card('messages', 'messages', 'Messages to you', () => html`<${MessagesCard} fold=${fold('messages')} doc=${docs.messages} local=${source.kind === 'local'}
      canAct=${!readOnly} onCheckNow=${onCheckNow} note=${checkNote} setNote=${setCheckNote} check=${docs.check} nowMs=${nowMs} />`)}
    ${card('requests', 'requests', "Pulse's requests", () => html`<${RequestsCard} fold=${fold('requests')} doc=${docs.requests} nowMs=${nowMs} />`)}
    ${card('module', 'schedules', 'Schedules and after-run options', () => html`<${SchedulesCard} fold=${fold('schedules')} doc=${docs.module}
      check=${docs.check} nowMs=${nowMs}
      onChange=${after.onAfterRun} busy=${after.afterBusy} error=${after.afterError} readOnly=${readOnly || (source.kind === 'local'
        ? 'After-run options live in workflow.json: change them on the server.' : '')} />`)}
    ${card('memory', 'memory', 'Goal memory', () => html`<${GoalMemoryCard} fold=${fold('memory')} doc=${docs.memory} onSave=${a.onSaveMemory}
      readOnly=${readOnly} saving=${a.saving} error=${a.memError} conflict=${a.memConflict} onDropConflict=${a.dropMemConflict} />`)}
    </div>
    ${card('agents', 'agent-log', 'Background agent log', () => html`<${AgentLogCard} doc=${docs.agents} nowMs=${nowMs}
      filters=${filters} onFilter=${setFilters} sessions=${allAgents.sessions} runs=${allAgents.runs}
      onOlder=${() => loadOlder(docs.agents)} />`)}
  </div>`;
}
