// The goal status card of a file still being stored: computed by the core in
// the worker from the File itself, before the copy exists.
import { html } from 'htm/preact';
import { useLayoutEffect } from 'preact/hooks';
import { GoalStatusCard } from './goal.mjs';

export function PreviewCard({ preview, nowSeconds }) {
  useLayoutEffect(() => { requestAnimationFrame(() => performance.mark('pulse:goal-card-shown')); }, []);
  const nowMs = (nowSeconds !== undefined ? nowSeconds : Date.now() / 1000) * 1000;
  return html`<div class="open-title"><h2>${preview.name}</h2><span class="muted">storing the copy in this browser… the other cards follow</span></div>
    <div class="dashboard"><${GoalStatusCard} check=${preview.check} nowMs=${nowMs} /></div>`;
}
