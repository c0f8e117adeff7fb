// OpenAI's Responses API (POST /v1/responses) for the scripted model server
// (model_server.mjs): the wire format Codex speaks (its `wire_api =
// "responses"`; 0.171 no longer takes "chat"). Requests are checked as the
// vendor checks them and answers come in the vendor's shapes, streamed as its
// server-sent events when `stream: true` (Codex always streams).
//
//   request:  {model, input: string | [item], instructions?, tools?: [tool], stream?, ...}
//     items:  {type?: "message", role: user|assistant|system|developer, content: string | [part]}
//             {type: "function_call", call_id, name, arguments (a JSON string), namespace?}
//             {type: "function_call_output", call_id, output}
//             {type: "reasoning", ...} (kept as is)
//     tools:  {type: "function", name, parameters}, {type: "namespace", name, tools: [function]},
//             or a hosted tool ({type: "web_search"}, ...)
//   answer:   {id: "resp_...", object: "response", status: "completed", output: [message |
//             function_call], usage: {input_tokens, output_tokens, total_tokens, ...}}
//
// A tool call of a namespaced tool (Codex puts an MCP server's tools in a
// namespace named mcp__<server>) carries `namespace` beside `name`; a script
// step says so: {tools: [{namespace: "mcp__pulse", name: "update_step", arguments}]}.

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const ROLES = ['user', 'assistant', 'system', 'developer'];

// `need(cond, message)` throws the caller's BadRequest when cond is false.
export function checkResponses(body, need) {
  need(body && typeof body === 'object' && !Array.isArray(body), 'the body must be a JSON object');
  need(typeof body.model === 'string' && body.model.length > 0, "Missing required parameter: 'model'.");
  need(typeof body.input === 'string' || Array.isArray(body.input), "Invalid type for 'input': expected a string or an array of input items.");
  need(body.instructions === undefined || body.instructions === null || typeof body.instructions === 'string',
    "Invalid type for 'instructions': expected a string.");
  const calls = new Set();     // call_ids of function calls so far
  const answered = new Set();  // call_ids with an output
  (Array.isArray(body.input) ? body.input : []).forEach((item, i) => {
    const at = `input[${i}]`;
    need(item && typeof item === 'object' && !Array.isArray(item), `Invalid type for '${at}': expected an object.`);
    const type = item.type === undefined ? 'message' : item.type;
    if (type === 'message') {
      need(ROLES.includes(item.role), `Invalid value for '${at}.role': expected one of ${ROLES.join(', ')}.`);
      need(typeof item.content === 'string' || Array.isArray(item.content), `Invalid type for '${at}.content': expected a string or an array.`);
      if (Array.isArray(item.content)) {
        item.content.forEach((part, j) => {
          need(part && typeof part.type === 'string', `Missing required parameter: '${at}.content[${j}].type'.`);
          if (part.type === 'input_text' || part.type === 'output_text') {
            need(typeof part.text === 'string', `Missing required parameter: '${at}.content[${j}].text'.`);
          }
        });
      }
    } else if (type === 'function_call') {
      need(typeof item.call_id === 'string' && item.call_id.length > 0, `Missing required parameter: '${at}.call_id'.`);
      need(TOOL_NAME.test(item.name || ''), `Invalid '${at}.name': string does not match pattern '^[a-zA-Z0-9_-]+$'.`);
      need(typeof item.arguments === 'string', `Invalid type for '${at}.arguments': expected a string.`);
      calls.add(item.call_id);
    } else if (type === 'function_call_output') {
      need(typeof item.call_id === 'string', `Missing required parameter: '${at}.call_id'.`);
      need(calls.has(item.call_id), `No tool call found for function call output with call_id ${item.call_id}.`);
      need(typeof item.output === 'string' || Array.isArray(item.output), `Invalid type for '${at}.output': expected a string or an array.`);
      answered.add(item.call_id);
    }
  });
  for (const id of calls) need(answered.has(id), `No tool output found for function call ${id}.`);
  if (body.tools !== undefined) {
    need(Array.isArray(body.tools), "Invalid type for 'tools': expected an array.");
    const checkFunction = (t, at) => {
      need(TOOL_NAME.test(t.name || ''), `Invalid '${at}.name': string does not match pattern '^[a-zA-Z0-9_-]+$' (${JSON.stringify(t.name)}).`);
      need(t.parameters === undefined || t.parameters === null || (typeof t.parameters === 'object' && !Array.isArray(t.parameters)),
        `Invalid '${at}.parameters': expected a JSON Schema object.`);
    };
    body.tools.forEach((t, i) => {
      need(t && typeof t.type === 'string', `Missing required parameter: 'tools[${i}].type'.`);
      if (t.type === 'function') checkFunction(t, `tools[${i}]`);
      if (t.type === 'namespace') {
        need(TOOL_NAME.test(t.name || ''), `Invalid 'tools[${i}].name'.`);
        need(Array.isArray(t.tools), `Invalid type for 'tools[${i}].tools': expected an array.`);
        t.tools.forEach((f, j) => checkFunction(f, `tools[${i}].tools[${j}]`));
      }
    });
  }
}

export function responsesErrorBody(status, message) {
  const type = status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error';
  return { error: { message, type, param: null, code: status === 401 ? 'invalid_api_key' : type } };
}

// The answer to one script step: {text?, tools?: [{name, namespace?, arguments | arguments_raw, id?}], usage?}.
export function responsesAnswer(step, model, newId) {
  const output = [];
  if (step.text !== undefined && step.text !== '') {
    output.push({ type: 'message', id: newId('msg_'), status: 'completed', role: 'assistant',
      content: [{ type: 'output_text', text: step.text, annotations: [] }] });
  }
  for (const t of step.tools || []) {
    const item = { type: 'function_call', id: newId('fc_'), call_id: t.id || newId('call_'), name: t.name,
      arguments: t.arguments_raw !== undefined ? t.arguments_raw : JSON.stringify(t.arguments || {}), status: 'completed' };
    if (t.namespace) item.namespace = t.namespace;
    output.push(item);
  }
  const usage = step.usage || { input: 1000, output: 100 };
  return {
    id: newId('resp_'), object: 'response', created_at: Math.floor(Date.now() / 1000), status: 'completed',
    error: null, incomplete_details: null, model, output, parallel_tool_calls: true,
    usage: { input_tokens: usage.input, input_tokens_details: { cached_tokens: 0 }, output_tokens: usage.output,
      output_tokens_details: { reasoning_tokens: 0 }, total_tokens: usage.input + usage.output },
  };
}

// The same answer as the vendor's server-sent events.
export function responsesStream(res, answer) {
  let seq = 0;
  const send = (type, o) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...o })}\n\n`);
  const pending = { ...answer, status: 'in_progress', output: [], usage: null };
  send('response.created', { response: pending });
  send('response.in_progress', { response: pending });
  answer.output.forEach((item, index) => {
    if (item.type === 'message') {
      const text = item.content[0].text;
      send('response.output_item.added', { output_index: index, item: { ...item, status: 'in_progress', content: [] } });
      const part = { type: 'output_text', text: '', annotations: [] };
      send('response.content_part.added', { item_id: item.id, output_index: index, content_index: 0, part });
      send('response.output_text.delta', { item_id: item.id, output_index: index, content_index: 0, delta: text, logprobs: [] });
      send('response.output_text.done', { item_id: item.id, output_index: index, content_index: 0, text, logprobs: [] });
      send('response.content_part.done', { item_id: item.id, output_index: index, content_index: 0, part: { ...part, text } });
    } else {
      send('response.output_item.added', { output_index: index, item: { ...item, status: 'in_progress', arguments: '' } });
      send('response.function_call_arguments.delta', { item_id: item.id, output_index: index, delta: item.arguments });
      send('response.function_call_arguments.done', { item_id: item.id, output_index: index, arguments: item.arguments });
    }
    send('response.output_item.done', { output_index: index, item });
  });
  send('response.completed', { response: answer });
  res.end();
}

// ---- reading a recorded request (the helpers of model_server.mjs, this format) ----

const partsText = (content) => (typeof content === 'string' ? content
  : content.filter((p) => p.type === 'input_text' || p.type === 'output_text').map((p) => p.text).join('\n'));
const outputText = (output) => (typeof output === 'string' ? output : JSON.stringify(output));
const items = (body) => (Array.isArray(body.input) ? body.input : [{ role: 'user', content: body.input }]);

export function responsesToolResults(body) {
  return items(body).filter((it) => it.type === 'function_call_output')
    .map((it) => ({ id: it.call_id, content: outputText(it.output), is_error: undefined }));
}

export function responsesLastToolResults(body) {
  const all = items(body);
  let i = all.length;
  while (i > 0 && all[i - 1].type === 'function_call_output') i--;
  return responsesToolResults({ input: all.slice(i) });
}

export function responsesToolCalls(body) {
  return items(body).filter((it) => it.type === 'function_call')
    .map((it) => ({ id: it.call_id, name: it.namespace ? `${it.namespace}__${it.name}` : it.name, arguments: JSON.parse(it.arguments) }));
}

export function responsesSystemPrompt(body) {
  const parts = body.instructions ? [body.instructions] : [];
  for (const it of items(body)) {
    if ((it.type === undefined || it.type === 'message') && (it.role === 'system' || it.role === 'developer')) parts.push(partsText(it.content));
  }
  return parts.join('\n');
}

export function responsesLastUserText(body) {
  const users = items(body).filter((it) => (it.type === undefined || it.type === 'message') && it.role === 'user');
  return users.length ? partsText(users[users.length - 1].content) : '';
}

// The names of the tools a request offers (a namespace's as namespace__name).
export function responsesToolNames(body) {
  const out = [];
  for (const t of body.tools || []) {
    if (t.type === 'namespace') for (const f of t.tools || []) out.push(`${t.name}__${f.name}`);
    else out.push(t.name || t.type);
  }
  return out;
}
