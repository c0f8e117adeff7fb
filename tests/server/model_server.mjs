// A scripted model server for the tests: no model vendor is reachable from
// the test machines, so this small HTTP server on loopback speaks both wire
// formats Pulse's model turns use, exactly as the vendors document them, and
// replays a script of answers while recording every request.
//
//   POST /v1/chat/completions  OpenAI's Chat Completions with tools (also what
//                              Ollama, llama.cpp's server, vLLM, LM Studio serve):
//                              Authorization: Bearer KEY; messages with roles
//                              system/user/assistant/tool, tool_calls with
//                              function.arguments as a JSON string, tool_call_id
//   POST /v1/messages          Anthropic's Messages API: x-api-key,
//                              anthropic-version; system, max_tokens, content
//                              blocks text/tool_use/tool_result (is_error)
//   POST /v1/responses         OpenAI's Responses API (what Codex speaks): the
//                              same Bearer key; input items message /
//                              function_call / function_call_output, tools in
//                              namespaces (model_responses.mjs)
//   GET  /v1/models            the model list (both shapes)
//
// Requests are checked as the vendors check them (roles alternate, every
// tool call answered by its id, tool names ^[a-zA-Z0-9_-]{1,64}$, tool
// results first in their message, ...): a malformed request gets the
// vendor's 400 error body, so a test notices. `stream: true` answers with
// the vendors' server-sent events. Made to be reused: point any client of
// either API at `openaiUrl` (".../v1") or `anthropicUrl` (the host).
//
// A script step (consumed in order; a function of the request may return one):
//   { text }                                  a final answer
//   { tools: [{ name, arguments }], text? }   tool calls (arguments: an object,
//                                             or arguments_raw: the exact text)
//   { status, headers?, error? }              an error answer in the vendor's shape
//   { raw, status?, headers? }                these bytes as the body
//   { bodyBytes }                             a 200 body of that many bytes
//   { delayMs, ... }                          wait first
//   { usage: { input, output } }              token counts (default 1000 / 100)
// A request past the end of the script gets 500 "script exhausted".
import { createServer } from 'node:http';
import {
  checkResponses, responsesAnswer, responsesErrorBody, responsesLastToolResults, responsesLastUserText,
  responsesStream, responsesSystemPrompt, responsesToolCalls, responsesToolNames, responsesToolResults,
} from './model_responses.mjs';

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

class BadRequest extends Error {}

function need(cond, message) { if (!cond) throw new BadRequest(message); }

// ---- request checks, as the vendors make them ----

function checkOpenAi(body) {
  need(body && typeof body === 'object' && !Array.isArray(body), 'the body must be a JSON object');
  need(typeof body.model === 'string' && body.model.length > 0, "'model' is required");
  need(Array.isArray(body.messages) && body.messages.length > 0, "'messages' must be a non-empty array");
  let open = null;  // tool_call ids of the last assistant message still to answer
  body.messages.forEach((m, i) => {
    const at = `messages[${i}]`;
    need(m && ['system', 'developer', 'user', 'assistant', 'tool'].includes(m.role), `${at}: invalid role`);
    if (m.role === 'tool') {
      need(open && typeof m.tool_call_id === 'string' && open.has(m.tool_call_id),
        `${at}: messages with role 'tool' must be a response to a preceeding message with 'tool_calls' (tool_call_id ${m.tool_call_id})`);
      need(typeof m.content === 'string' || Array.isArray(m.content), `${at}: content must be a string`);
      open.delete(m.tool_call_id);
      return;
    }
    need(!open || open.size === 0, `${at}: an assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id' (missing: ${[...(open || [])].join(', ')})`);
    open = null;
    if (m.role === 'assistant') {
      need(m.content === null || m.content === undefined || typeof m.content === 'string' || Array.isArray(m.content), `${at}: invalid content`);
      if (m.tool_calls !== undefined) {
        need(Array.isArray(m.tool_calls) && m.tool_calls.length > 0, `${at}: tool_calls must be a non-empty array`);
        open = new Set();
        for (const tc of m.tool_calls) {
          need(tc && typeof tc.id === 'string' && tc.id && tc.type === 'function', `${at}: each tool call needs an id and type 'function'`);
          need(tc.function && TOOL_NAME.test(tc.function.name || ''), `${at}: invalid function name`);
          need(typeof tc.function.arguments === 'string', `${at}: function.arguments must be a string`);
          open.add(tc.id);
        }
      } else {
        need(typeof m.content === 'string' || Array.isArray(m.content), `${at}: content is required`);
      }
    } else {
      need(typeof m.content === 'string' || Array.isArray(m.content), `${at}: content must be a string or an array`);
    }
  });
  need(!open || open.size === 0, `an assistant message with 'tool_calls' must be followed by tool messages (missing: ${[...(open || [])].join(', ')})`);
  if (body.tools !== undefined) {
    need(Array.isArray(body.tools), "'tools' must be an array");
    for (const t of body.tools) {
      need(t && t.type === 'function' && t.function && TOOL_NAME.test(t.function.name || ''),
        `invalid tool: ${JSON.stringify(t && t.function && t.function.name)}`);
      need(t.function.parameters === undefined || (typeof t.function.parameters === 'object' && !Array.isArray(t.function.parameters)),
        `tool ${t.function.name}: parameters must be a JSON Schema object`);
    }
  }
}

function blocks(content) { return typeof content === 'string' ? [{ type: 'text', text: content }] : content; }

function checkAnthropic(body, headers) {
  need(typeof headers['anthropic-version'] === 'string', 'anthropic-version: header is required');
  need(body && typeof body === 'object' && !Array.isArray(body), 'the body must be a JSON object');
  need(typeof body.model === 'string' && body.model.length > 0, 'model: Field required');
  need(Number.isInteger(body.max_tokens) && body.max_tokens >= 1, 'max_tokens: Field required');
  if (body.system !== undefined) {
    need(typeof body.system === 'string' || Array.isArray(body.system), 'system: Input should be a valid string or list');
  }
  need(Array.isArray(body.messages) && body.messages.length > 0, 'messages: at least one message is required');
  let pending = new Set();  // tool_use ids of the previous assistant message
  body.messages.forEach((m, i) => {
    const at = `messages.${i}`;
    need(m && (m.role === 'user' || m.role === 'assistant'), `${at}.role: Input should be 'user' or 'assistant'`);
    need(i > 0 || m.role === 'user', 'messages: the first message must use the "user" role');
    need(i === 0 || body.messages[i - 1].role !== m.role, `messages: roles must alternate between "user" and "assistant" (${at})`);
    need(typeof m.content === 'string' || (Array.isArray(m.content) && m.content.length > 0), `${at}.content: must be a string or a non-empty list`);
    const list = blocks(m.content);
    if (m.role === 'user') {
      let seenOther = false;
      for (const b of list) {
        if (b.type === 'tool_result') {
          need(!seenOther, `${at}: tool_result blocks must come first in the message content`);
          need(pending.has(b.tool_use_id), `${at}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${b.tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`);
          pending.delete(b.tool_use_id);
          need(b.is_error === undefined || typeof b.is_error === 'boolean', `${at}: is_error must be a boolean`);
          need(b.content === undefined || typeof b.content === 'string' || Array.isArray(b.content), `${at}: tool_result content must be a string or a list`);
        } else {
          seenOther = true;
          need(b.type === 'text', `${at}: unexpected block type ${b.type}`);
          need(typeof b.text === 'string' && b.text.length > 0, `${at}: text content blocks must be non-empty`);
        }
      }
      need(pending.size === 0, `${at}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${[...pending].join(', ')}`);
    } else {
      need(pending.size === 0, `${at}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after`);
      pending = new Set();
      for (const b of list) {
        if (b.type === 'tool_use') {
          need(typeof b.id === 'string' && /^[a-zA-Z0-9_-]+$/.test(b.id), `${at}: tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`);
          need(TOOL_NAME.test(b.name || ''), `${at}: tool_use.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`);
          need(b.input && typeof b.input === 'object' && !Array.isArray(b.input), `${at}: tool_use.input: Input should be a valid dictionary`);
          pending.add(b.id);
        } else {
          need(b.type === 'text' && typeof b.text === 'string' && b.text.length > 0, `${at}: text content blocks must be non-empty`);
        }
      }
    }
  });
  need(pending.size === 0 || body.messages[body.messages.length - 1].role === 'assistant', 'tool_use without tool_result');
  if (body.tools !== undefined) {
    need(Array.isArray(body.tools), 'tools: Input should be a valid list');
    for (const t of body.tools) {
      need(t && TOOL_NAME.test(t.name || ''), `tools: name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$' (${JSON.stringify(t && t.name)})`);
      need(t.input_schema && typeof t.input_schema === 'object' && t.input_schema.type === 'object', `tools.${t.name}.input_schema: type must be "object"`);
    }
  }
}

// ---- answers ----

let serial = 0;
const id = (prefix) => `${prefix}${(++serial).toString(36).padStart(6, '0')}${Math.random().toString(36).slice(2, 10)}`;

function errorBody(format, status, message) {
  if (format === 'responses') return responsesErrorBody(status, message);
  if (format === 'anthropic') {
    const type = status === 429 ? 'rate_limit_error' : status === 401 ? 'authentication_error'
      : status === 529 ? 'overloaded_error' : status >= 500 ? 'api_error' : 'invalid_request_error';
    return { type: 'error', error: { type, message } };
  }
  const type = status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error';
  return { error: { message, type, param: null, code: status === 401 ? 'invalid_api_key' : type } };
}

function toolCalls(step) {
  return (step.tools || []).map((t) => ({
    id: t.id || null,
    name: t.name,
    argsText: t.arguments_raw !== undefined ? t.arguments_raw : JSON.stringify(t.arguments || {}),
    args: t.arguments_raw !== undefined ? null : (t.arguments || {}),
  }));
}

function openAiAnswer(step, model) {
  const calls = toolCalls(step);
  const message = { role: 'assistant', content: step.text !== undefined ? step.text : (calls.length ? null : ''), refusal: null };
  if (calls.length) {
    message.tool_calls = calls.map((c) => ({ id: c.id || id('call_'), type: 'function', function: { name: c.name, arguments: c.argsText } }));
  }
  const usage = step.usage || { input: 1000, output: 100 };
  return {
    id: id('chatcmpl-'), object: 'chat.completion', created: Math.floor(Date.now() / 1000), model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: calls.length ? 'tool_calls' : 'stop' }],
    usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output },
    system_fingerprint: null,
  };
}

function anthropicAnswer(step, model) {
  const calls = toolCalls(step);
  const content = [];
  if (step.text) content.push({ type: 'text', text: step.text });
  for (const c of calls) {
    // The Messages API's input is an object; "arguments_raw" is the model
    // writing something else there.
    let input = c.args;
    if (input === null) { try { input = JSON.parse(c.argsText); } catch { input = c.argsText; } }
    content.push({ type: 'tool_use', id: c.id || id('toolu_'), name: c.name, input });
  }
  const usage = step.usage || { input: 1000, output: 100 };
  return {
    id: id('msg_'), type: 'message', role: 'assistant', model, content,
    stop_reason: calls.length ? 'tool_use' : 'end_turn', stop_sequence: null,
    usage: { input_tokens: usage.input, output_tokens: usage.output },
  };
}

// The same answers as server-sent events.
function openAiStream(res, answer, includeUsage) {
  const chunk = (delta, finish = null) => ({ id: answer.id, object: 'chat.completion.chunk', created: answer.created, model: answer.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
  const send = (o) => res.write(`data: ${JSON.stringify(o)}\n\n`);
  const m = answer.choices[0].message;
  send(chunk({ role: 'assistant', content: '' }));
  if (m.content) send(chunk({ content: m.content }));
  (m.tool_calls || []).forEach((tc, index) => {
    send(chunk({ tool_calls: [{ index, id: tc.id, type: 'function', function: { name: tc.function.name, arguments: '' } }] }));
    send(chunk({ tool_calls: [{ index, function: { arguments: tc.function.arguments } }] }));
  });
  send(chunk({}, answer.choices[0].finish_reason));
  if (includeUsage) send({ ...chunk({}), choices: [], usage: answer.usage });
  res.end('data: [DONE]\n\n');
}

function anthropicStream(res, answer) {
  const send = (type, o) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...o })}\n\n`);
  send('message_start', { message: { ...answer, content: [], stop_reason: null, usage: { input_tokens: answer.usage.input_tokens, output_tokens: 1 } } });
  send('ping', {});
  answer.content.forEach((b, index) => {
    if (b.type === 'text') {
      send('content_block_start', { index, content_block: { type: 'text', text: '' } });
      send('content_block_delta', { index, delta: { type: 'text_delta', text: b.text } });
    } else {
      send('content_block_start', { index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } });
      send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input) } });
    }
    send('content_block_stop', { index });
  });
  send('message_delta', { delta: { stop_reason: answer.stop_reason, stop_sequence: null }, usage: { output_tokens: answer.usage.output_tokens } });
  send('message_stop', {});
  res.end();
}

// Starts the server; resolves to { url, openaiUrl, anthropicUrl, requests, failures, push, remaining, close }.
// `key`: when set, requests must carry it (Bearer / x-api-key) or get 401.
// `fallback(record, requests)`: the answer once the script is spent (a bench
// answering every turn the same way), instead of 500.
export async function startModelServer({ script = [], key, models = ['pulse-test-model'], fallback } = {}) {
  const queue = [...script];
  const requests = [];
  const failures = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => handle(req, res, Buffer.concat(chunks)).catch((e) => {
      // A script function that threw (a test's assertion on the request):
      // kept for the test to report, and answered 500.
      failures.push(e);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `model server: ${e.message}`, type: 'server_error' } }));
    }));
  });

  async function handle(req, res, raw) {
    const url = new URL(req.url, 'http://x');
    const path = url.pathname.replace(/\/+$/, '');
    const format = path.endsWith('/chat/completions') ? 'openai' : path.endsWith('/v1/messages') ? 'anthropic'
      : path.endsWith('/responses') ? 'responses' : null;
    let record = null;
    const reply = (status, body, headers = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body));
      if (record) record.answeredAt = performance.now();
    };
    if (req.method === 'GET' && path.endsWith('/v1/models')) {
      return reply(200, { object: 'list', data: models.map((m) => ({ id: m, object: 'model', created: 0, owned_by: 'pulse-tests', type: 'model', display_name: m })) });
    }
    if (req.method !== 'POST' || !format) return reply(404, errorBody('openai', 404, `no route ${req.method} ${url.pathname}`));
    // receivedAt / answeredAt (performance.now()): how long this server took over it.
    record = { at: Date.now(), receivedAt: performance.now(), method: req.method, path: url.pathname, format,
      headers: { ...req.headers }, raw: raw.toString('utf8') };
    requests.push(record);
    let body;
    try { body = JSON.parse(record.raw); } catch (e) { return reply(400, errorBody(format, 400, `could not parse the JSON body: ${e.message}`)); }
    record.body = body;
    if (key !== undefined) {
      const bearer = format !== 'anthropic';
      const given = bearer ? req.headers.authorization : req.headers['x-api-key'];
      const want = bearer ? `Bearer ${key}` : key;
      if (given !== want) return reply(401, errorBody(format, 401, bearer ? 'Incorrect API key provided.' : 'invalid x-api-key'));
    }
    try {
      if (format === 'openai') checkOpenAi(body);
      else if (format === 'responses') checkResponses(body, need);
      else checkAnthropic(body, req.headers);
    } catch (e) {
      if (!(e instanceof BadRequest)) throw e;
      record.rejected = e.message;
      return reply(400, errorBody(format, 400, e.message));
    }
    let step = queue.length ? queue.shift() : fallback;
    if (typeof step === 'function') step = await step(record, requests);
    if (!step) return reply(500, errorBody(format, 500, 'script exhausted: no answer left for this request'));
    record.step = step;
    if (step.delayMs) await new Promise((r) => setTimeout(r, step.delayMs));
    if (res.destroyed || req.socket.destroyed) return undefined;
    if (step.bodyBytes) {
      res.writeHead(200, { 'content-type': 'application/json' });
      const block = Buffer.alloc(64 * 1024, 'x');
      res.write('{"pad":"');
      for (let sent = 9; sent < step.bodyBytes && !res.destroyed; sent += block.length) {
        if (!res.write(block)) await new Promise((r) => { res.once('drain', r); res.once('close', r); });
      }
      return res.end('"}');
    }
    if (step.raw !== undefined) return reply(step.status || 200, step.raw, step.headers || {});
    if (step.status && step.status !== 200) {
      return reply(step.status, errorBody(format, step.status, step.error || `status ${step.status}`), step.headers || {});
    }
    const answer = format === 'openai' ? openAiAnswer(step, body.model)
      : format === 'responses' ? responsesAnswer(step, body.model, id) : anthropicAnswer(step, body.model);
    if (body.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      if (format === 'responses') return responsesStream(res, answer);
      return format === 'openai' ? openAiStream(res, answer, body.stream_options && body.stream_options.include_usage)
        : anthropicStream(res, answer);
    }
    return reply(200, answer);
  }

  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  const base = `http://127.0.0.1:${port}`;
  return {
    url: base,
    openaiUrl: `${base}/v1`,
    anthropicUrl: base,
    requests,
    failures,  // errors thrown by script functions (their assertions on a request)
    push: (...steps) => queue.push(...steps),
    remaining: () => queue.length,
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }),
  };
}

// The tool results a request carries, in either format: [{id, content, is_error}].
export function toolResults(record) {
  if (record.format === 'responses') return responsesToolResults(record.body);
  const out = [];
  for (const m of record.body.messages) {
    if (m.role === 'tool') out.push({ id: m.tool_call_id, content: typeof m.content === 'string' ? m.content : JSON.stringify(m.content), is_error: undefined });
    if (m.role === 'user' && Array.isArray(m.content)) {
      for (const b of m.content) {
        if (b.type === 'tool_result') out.push({ id: b.tool_use_id, content: typeof b.content === 'string' ? b.content : JSON.stringify(b.content), is_error: b.is_error });
      }
    }
  }
  return out;
}

// The results of the last round only (what answers the previous answer's calls).
export function lastToolResults(record) {
  if (record.format === 'responses') return responsesLastToolResults(record.body);
  const msgs = record.body.messages;
  if (record.format === 'anthropic') {
    const last = msgs[msgs.length - 1];
    return Array.isArray(last.content) ? toolResults({ body: { messages: [last] } }) : [];
  }
  let i = msgs.length;
  while (i > 0 && msgs[i - 1].role === 'tool') i--;
  return toolResults({ body: { messages: msgs.slice(i) } });
}

// The tool calls the conversation so far carries (the replay), in either format: [{id, name, arguments}].
export function toolCallsIn(record) {
  if (record.format === 'responses') return responsesToolCalls(record.body);
  const out = [];
  for (const m of record.body.messages) {
    for (const tc of m.tool_calls || []) out.push({ id: tc.id, name: tc.function.name, arguments: JSON.parse(tc.function.arguments) });
    if (m.role === 'assistant' && Array.isArray(m.content)) {
      for (const b of m.content) if (b.type === 'tool_use') out.push({ id: b.id, name: b.name, arguments: b.input });
    }
  }
  return out;
}

// The system prompt of a request, in either format.
export function systemPrompt(record) {
  if (record.format === 'responses') return responsesSystemPrompt(record.body);
  if (record.format === 'anthropic') {
    const s = record.body.system;
    return typeof s === 'string' ? s : (s || []).map((b) => b.text).join('');
  }
  return record.body.messages.filter((m) => m.role === 'system').map((m) => m.content).join('\n');
}

// The last user text of a request (the turn's own message).
export function lastUserText(record) {
  if (record.format === 'responses') return responsesLastUserText(record.body);
  const users = record.body.messages.filter((m) => m.role === 'user');
  const last = users[users.length - 1];
  if (!last) return '';
  return typeof last.content === 'string' ? last.content
    : last.content.filter((b) => b.type === 'text').map((b) => b.text).join('\n');
}

// The names of the tools a request offers, in any format (a Responses
// namespace's tools as namespace__name, as Claude Code names MCP tools).
export function toolNames(record) {
  if (record.format === 'responses') return responsesToolNames(record.body);
  return (record.body.tools || []).map((t) => (t.function ? t.function.name : t.name));
}
