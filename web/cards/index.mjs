// The Pulse tab's cards: components from the agreed JSON shapes to DOM. They
// hold no data of their own and call nothing; the dashboard fetches and
// passes the documents and the action callbacks, so each card renders the
// same in Node (preact-render-to-string, unit tests) and in the browser.
export { CardError, CardLoading } from './card.mjs';
export { GoalStatusCard, ReadingsCard, RunsByRouteCard, chartSeries } from './goal.mjs';
export { NeedsYouCard, DecisionLogCard, answerText } from './decisions.mjs';
export { GoalMemoryCard, renderMemory } from './memory.mjs';
export { AgentLogCard, groupAgentRows, MAX_AGENT_ROWS } from './agent-log.mjs';
export { RequestsCard } from './requests.mjs';
