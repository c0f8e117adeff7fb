// The scripted model server itself (tests/server/model_server.mjs), as any
// client of either API would meet it: answers in each vendor's shape, the
// same answers as server-sent events with stream: true, requests refused as
// the vendors refuse them, the key checked. Other suites (and the real
// Claude Code and Codex programs, issue #36) rely on it being faithful.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startModelServer } from './model_server.mjs';

const post = async (url, body, headers = {}) => {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, text: await res.text(), type: res.headers.get('content-type') };
};

// Server-sent events: [{event, data}].
const events = (text) => text.trim().split('\n\n').map((block) => {
  const e = {};
  for (const line of block.split('\n')) {
    const at = line.indexOf(': ');
    e[line.slice(0, at)] = line.slice(at + 2);
  }
  return e;
});

test('both formats answer, stream and refuse as the vendors do', async () => {
  const m = await startModelServer({ key: 'k-123' });
  try {
    const call = { tools: [{ name: 'get_pulse_state', arguments: { view: 'goal_status' } }], text: 'Reading.' };
    // OpenAI: a tool call, then the same as chunks.
    m.push(call, call);
    const chat = { model: 'm', messages: [{ role: 'user', content: 'hi' }],
      tools: [{ type: 'function', function: { name: 'get_pulse_state', parameters: { type: 'object' } } }] };
    const o = await post(`${m.openaiUrl}/chat/completions`, chat, { authorization: 'Bearer k-123' });
    assert.equal(o.status, 200, o.text);
    const answer = JSON.parse(o.text);
    assert.equal(answer.object, 'chat.completion');
    assert.equal(answer.choices[0].finish_reason, 'tool_calls');
    const tc = answer.choices[0].message.tool_calls[0];
    assert.deepEqual([tc.type, tc.function.name, JSON.parse(tc.function.arguments)], ['function', 'get_pulse_state', { view: 'goal_status' }]);
    const s = await post(`${m.openaiUrl}/chat/completions`, { ...chat, stream: true, stream_options: { include_usage: true } },
      { authorization: 'Bearer k-123' });
    assert.equal(s.type, 'text/event-stream');
    const chunks = events(s.text);
    assert.equal(chunks.at(-1).data, '[DONE]');
    const parsed = chunks.slice(0, -1).map((c) => JSON.parse(c.data));
    const args = parsed.flatMap((c) => (c.choices[0] && c.choices[0].delta.tool_calls) || []).map((d) => d.function.arguments).join('');
    assert.deepEqual(JSON.parse(args), { view: 'goal_status' });
    assert.equal(parsed.find((c) => c.choices[0] && c.choices[0].finish_reason).choices[0].finish_reason, 'tool_calls');
    assert.ok(parsed.at(-1).usage.prompt_tokens > 0);

    // Anthropic: the same step as content blocks, then as its event stream.
    m.push(call, call);
    const msg = { model: 'm', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }],
      tools: [{ name: 'get_pulse_state', input_schema: { type: 'object' } }] };
    const headers = { 'x-api-key': 'k-123', 'anthropic-version': '2023-06-01' };
    const a = JSON.parse((await post(`${m.anthropicUrl}/v1/messages`, msg, headers)).text);
    assert.deepEqual([a.type, a.stop_reason, a.content.map((b) => b.type)], ['message', 'tool_use', ['text', 'tool_use']]);
    const as = events((await post(`${m.anthropicUrl}/v1/messages`, { ...msg, stream: true }, headers)).text);
    assert.deepEqual([as[0].event, as.at(-1).event], ['message_start', 'message_stop']);
    const partial = as.filter((e) => e.event === 'content_block_delta').map((e) => JSON.parse(e.data).delta)
      .filter((d) => d.type === 'input_json_delta').map((d) => d.partial_json).join('');
    assert.deepEqual(JSON.parse(partial), { view: 'goal_status' });

    // Refusals: a wrong key, no anthropic-version, roles that do not
    // alternate, a tool result with no call, a tool call left unanswered.
    const refused = [
      [`${m.openaiUrl}/chat/completions`, chat, { authorization: 'Bearer nope' }, 401, /Incorrect API key/],
      [`${m.anthropicUrl}/v1/messages`, msg, { 'x-api-key': 'k-123' }, 400, /anthropic-version/],
      [`${m.anthropicUrl}/v1/messages`, { ...msg, messages: [{ role: 'user', content: 'a' }, { role: 'user', content: 'b' }] }, headers, 400, /alternate/],
      [`${m.anthropicUrl}/v1/messages`, { ...msg, messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x', content: 'r' }] }] }, headers, 400, /tool_use_id/],
      [`${m.openaiUrl}/chat/completions`, { ...chat, messages: [{ role: 'user', content: 'a' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_pulse_state', arguments: '{}' } }] },
        { role: 'user', content: 'b' }] }, { authorization: 'Bearer k-123' }, 400, /tool_call_id/],
    ];
    for (const [url, body, h, status, says] of refused) {
      const r = await post(url, body, h);
      assert.equal(r.status, status, r.text);
      assert.match(r.text, says);
    }
    // Past the script: 500, so a test notices a request it did not expect.
    const spent = await post(`${m.openaiUrl}/chat/completions`, chat, { authorization: 'Bearer k-123' });
    assert.equal(spent.status, 500);
    assert.match(spent.text, /script exhausted/);
    const list = JSON.parse(await (await fetch(`${m.openaiUrl}/models`)).text());
    assert.deepEqual(list.data.map((x) => x.id), ['pulse-test-model']);
  } finally {
    await m.close();
  }
});
