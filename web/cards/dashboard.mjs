// The dashboard of one open workflow: every card, from one source
// (data/sources.mjs), with the owner's actions (answer a decision, save the
// goal memory) sent back through the same source.
import { html } from 'htm/preact';
import { useState, useEffect, useLayoutEffect, useRef, useCallback } from 'preact/hooks';
import { CardError, CardLoading } from './card.mjs';
import { GoalStatusCard, ReadingsCard, RunsByRouteCard } from './goal.mjs';
import { ReauthCard, FactsCard } from './facts.mjs';
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
    // The goal status first: it is what the owner reads first.
    performance.mark('pulse:cards-requested');
    await Promise.all(jobs.map(async ([key, method, args]) => {
      try {
        const doc = await source.call(method, args(), nowSeconds);
        if (key === 'check') performance.mark('pulse:goal-check-answered');
        if (g !== gen.current && which === undefined) return;
        put(key, doc);
      } catch (err) {
        put(key, undefined, errorText(err));
      }
    }));
  }, [source, nowSeconds]);
  useEffect(() => { setDocs({}); setErrors({}); load(); }, [load]);
  return { docs, errors, load, put };
}

// The agent log card's document under its filters, and the sessions and
// runs its filter lists offer (from the unfiltered read).
function useAgentLog(source, nowSeconds, put) {
  const [filters, setFilters] = useState({ groupBy: 'session', period: '7d' });
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
  useEffect(() => { loadAgents(filters); }, [loadAgents, filters]);
  // The page before the oldest shown, put in front of the rows shown.
  const loadOlder = useCallback(async (doc) => {
    if (!doc || !doc.next_cursor) return;
    try {
      const older = await readAgentLog(source, filters, nowSeconds, doc.next_cursor);
      put('agents', { ...older, rows: [...older.rows, ...doc.rows], stuck: (older.stuck || 0) + (doc.stuck || 0) });
    } catch (err) {
      put('agents', undefined, errorText(err));
    }
  }, [source, nowSeconds, filters]);
  return { filters, setFilters, allAgents, loadOlder };
}

// What became of the apply message the server sends to the Builder chat
// after an Accept or Change (the local copy sends none).
export function applyNote(answered) {
  const apply = answered && answered.apply;
  if (!apply || !apply.sent) return '';
  if (apply.delivered) return ` Sent to the Builder chat ${apply.builder_session_id} to apply.`;
  // The server's reason already says where the message waits; said once here.
  const why = (apply.reason || '').replace(/^undelivered: /, '').replace(/;\s*the message waits in the outbox\.?$/, '');
  return ` The apply message waits in the outbox, undelivered: ${why}.`;
}

// "Answered: <question>." without a second mark after a question's own.
function answeredLine(question) {
  return `Answered: ${question}${/[.?!]$/.test(question) ? '' : '.'}`;
}

// The owner's actions: answering a decision and saving the goal memory.
function useActions(source, nowSeconds, load, onChanged) {
  const [busyId, setBusyId] = useState(null);
  const [notice, setNotice] = useState('');
  const [memError, setMemError] = useState('');
  const [saving, setSaving] = useState(false);
  const noticeRef = useRef(null);
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
  const onSaveMemory = async (text, doc) => {
    setSaving(true);
    setMemError('');
    try {
      await source.call('memory.save', { text, base_hash: doc && (doc.hash || doc.base_hash) }, nowSeconds);
      await load(['memory']);
      if (onChanged) onChanged();
      setNotice('Goal memory saved.');
      return true;
    } catch (err) {
      setMemError(`Not saved: ${errorText(err)}`);
      return false;
    } finally {
      setSaving(false);
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
  return { busyId, notice, noticeRef, memError, saving, onAnswer, onOutcome, onSaveMemory, onFocus, focusBusy, focusError,
    setNotice };
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

// Check now: the goal-check turn runs on the server in the background.
async function checkNow(source, nowSeconds, load) {
  const out = await source.call('turn.goal_check', {}, nowSeconds);
  // The turn runs in the background: read its message back a few times.
  for (const ms of [1000, 3000, 6000]) setTimeout(() => load(['messages', 'check']), ms);
  return `Goal check started${out && out.turn && out.turn.started_at ? ` at ${out.turn.started_at}` : ''}: its message appears here when it is done.`;
}

export function Dashboard({ source, nowSeconds, readOnly, onChanged }) {
  const { docs, errors, load, put } = useCardDocs(source, nowSeconds);
  const { filters, setFilters, allAgents, loadOlder } = useAgentLog(source, nowSeconds, put);
  const a = useActions(source, nowSeconds, load, onChanged);
  const after = useAfterRun(source, nowSeconds, load, a.setNotice);
  // For bench/web_open.mjs: when the goal status card first shows.
  useLayoutEffect(() => {
    if (docs.check || errors.check) requestAnimationFrame(() => performance.mark('pulse:goal-card-shown'));
  }, [!!docs.check, !!errors.check]);

  const onCheckNow = () => checkNow(source, nowSeconds, load);
  // Opening a goal workflow on the server begins its Pulse conversation (the
  // owner's tab only; a copy or a reader just reads).
  useEffect(() => {
    if (source.kind !== 'server' || readOnly || !docs.check || docs.check.status === 'no_goal') return;
    if (docs.conversation && docs.conversation.exists) return;
    source.call('conversation.open', {}, nowSeconds).then((doc) => put('conversation', doc), () => {});
  }, [source, readOnly, docs.check && docs.check.status, docs.conversation && docs.conversation.exists]);
  // Talk to Pulse: the turn runs in the background; the chat is read again
  // until Pulse has answered, and the chat comes into view.
  const onTalk = async (text) => {
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
    return `Sent${out && out.turn && out.turn.started_at ? ` at ${out.turn.started_at}` : ''}: Pulse's reply appears in the Pulse chat.`;
  };
  const nowMs = (nowSeconds !== undefined ? nowSeconds : Date.now() / 1000) * 1000;
  const card = (key, id, title, body) => (errors[key] ? html`<${CardError} id=${id} title=${title} error=${errors[key]} />`
    : docs[key] === undefined ? html`<${CardLoading} id=${id} title=${title} />` : body());

  return html`<div class="dashboard">
    <div class="notice" role="status" aria-live="polite" tabindex="-1" ref=${a.noticeRef}>${a.notice}</div>
    ${card('check', 'goal-status', 'Goal status', () => html`<${GoalStatusCard} check=${docs.check} nowMs=${nowMs} />`)}
    ${card('focus', 'focus-areas', 'Focus areas', () => html`<${FocusAreasCard} doc=${docs.focus} onChange=${a.onFocus}
      busy=${a.focusBusy} error=${a.focusError} readOnly=${readOnly || (source.kind === 'local'
        ? 'Focus areas live in workflow.json: change them on the server or with pulse focus.' : '')} />`)}
    ${docs.check ? html`<${ReauthCard} check=${docs.check} nowMs=${nowMs} />` : null}
    ${docs.check && docs.check.facts ? html`<${FactsCard} check=${docs.check} nowMs=${nowMs} />` : null}
    ${docs.check && docs.check.facts ? html`<${RunHealthCard} check=${docs.check} qa=${docs.qa}
      failedRuns=${docs.failedRuns} nowMs=${nowMs} />` : null}
    <div class="grid">
      ${card('readings', 'readings', 'Readings', () => html`<${ReadingsCard} doc=${docs.readings} nowMs=${nowMs} />`)}
      ${card('routes', 'routes', 'Runs by route', () => html`<${RunsByRouteCard} doc=${docs.routes} />`)}
    </div>
    <div class="grid">
      ${card('decisions', 'needs-you', 'Needs you', () => html`<${NeedsYouCard} doc=${docs.decisions} nowMs=${nowMs}
        onAnswer=${a.onAnswer} busyId=${a.busyId} readOnly=${readOnly} />`)}
      ${card('decisions', 'decision-log', 'Decision log', () => html`<${DecisionLogCard} doc=${docs.decisions} nowMs=${nowMs}
        onOutcome=${a.onOutcome} busyId=${a.busyId} readOnly=${readOnly} />`)}
    </div>
    <${TalkToPulseCard} local=${source.kind === 'local'} canAct=${!readOnly} onSend=${onTalk}
      hasGoal=${!docs.check || docs.check.status !== 'no_goal'} />
    ${card('conversation', 'pulse-chat', 'Pulse chat', () => html`<${PulseChatCard} doc=${docs.conversation} source=${source}
      nowSeconds=${nowSeconds} />`)}
    ${card('messages', 'messages', 'Messages to you', () => html`<${MessagesCard} doc=${docs.messages} local=${source.kind === 'local'}
      canAct=${!readOnly} onCheckNow=${onCheckNow} check=${docs.check} />`)}
    ${card('requests', 'requests', "Pulse's requests", () => html`<${RequestsCard} doc=${docs.requests} nowMs=${nowMs} />`)}
    ${card('module', 'schedules', 'Schedules and after-run options', () => html`<${SchedulesCard} doc=${docs.module}
      onChange=${after.onAfterRun} busy=${after.afterBusy} error=${after.afterError} readOnly=${readOnly || (source.kind === 'local'
        ? 'After-run options live in workflow.json: change them on the server.' : '')} />`)}
    ${card('memory', 'memory', 'Goal memory', () => html`<${GoalMemoryCard} doc=${docs.memory} onSave=${a.onSaveMemory}
      readOnly=${readOnly} saving=${a.saving} error=${a.memError} />`)}
    ${card('agents', 'agent-log', 'Background agent log', () => html`<${AgentLogCard} doc=${docs.agents} nowMs=${nowMs}
      filters=${filters} onFilter=${setFilters} sessions=${allAgents.sessions} runs=${allAgents.runs}
      onOlder=${() => loadOlder(docs.agents)} />`)}
  </div>`;
}
