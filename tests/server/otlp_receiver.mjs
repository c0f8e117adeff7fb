// A test OTLP/HTTP receiver on loopback that decodes what it is sent with the
// official OpenTelemetry protobuf definitions (the protobufjs module
// generated from opentelemetry-proto that @opentelemetry/otlp-transformer
// ships), not with a parser of its own: the JSON is read into an
// ExportTraceServiceRequest message, encoded to protobuf bytes, decoded back
// and must come out exactly as sent, so a field the definitions do not know,
// or one of the wrong type, fails the request.
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { ROOT } from '../node/helpers.mjs';

const require = createRequire(import.meta.url);
const root = require(join(ROOT, 'node_modules', '@opentelemetry', 'otlp-transformer', 'build', 'src', 'generated', 'root.js'));
const ExportTraceServiceRequest = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
const ID_KEYS = new Set(['traceId', 'spanId', 'parentSpanId']);

// OTLP/HTTP's JSON differs from the proto3 JSON mapping in one place: trace
// and span ids are hex, not base64 (the OTLP specification).
function mapIds(value, convert) {
  if (Array.isArray(value)) return value.map((v) => mapIds(v, convert));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, ID_KEYS.has(k) ? convert(k, v) : mapIds(v, convert)]));
  }
  return value;
}

// The request as the definitions read it, ids back in hex; throws when the
// body is not an ExportTraceServiceRequest in OTLP's JSON encoding.
export function decodeOtlpJson(text) {
  const sent = mapIds(JSON.parse(text), (k, hex) => {
    const want = k === 'traceId' ? 32 : 16;
    assert.match(hex, new RegExp(`^[0-9a-f]{${want}}$`), `${k} is ${want} lowercase hex digits`);
    return Buffer.from(hex, 'hex').toString('base64');
  });
  const message = ExportTraceServiceRequest.fromObject(sent);
  const bytes = ExportTraceServiceRequest.encode(message).finish();
  const back = ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(bytes),
    { longs: String, enums: Number, bytes: String, defaults: false, arrays: false });
  assert.deepStrictEqual(back, sent, 'the request survives the protobuf round trip unchanged');
  return mapIds(back, (k, b64) => Buffer.from(b64, 'base64').toString('hex'));
}

// The spans of a decoded request, each with its attributes as an object.
export function spansOf(request) {
  const out = [];
  for (const rs of request.resourceSpans || []) {
    for (const ss of rs.scopeSpans || []) {
      for (const span of ss.spans || []) {
        const attrs = {};
        for (const a of span.attributes || []) attrs[a.key] = a.value.stringValue ?? a.value.intValue ?? a.value.boolValue;
        out.push({ ...span, attrs, resource: rs.resource });
      }
    }
  }
  return out;
}

// mode(): 'ok' answers 200 {} (the spans count as received once the answer
// is written), 503 answers 503, 'hang' never answers.
export async function startReceiver({ mode = () => 'ok' } = {}) {
  const received = [];   // spans of requests answered 200
  const requests = [];   // every request: {path, headers, spans, answered}
  const errors = [];
  const hung = new Set();
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const entry = { path: req.url, headers: req.headers, spans: [], answered: false };
      requests.push(entry);
      try {
        assert.equal(req.method, 'POST');
        assert.equal(req.url, '/v1/traces');
        assert.match(req.headers['content-type'] || '', /^application\/json/);
        entry.spans = spansOf(decodeOtlpJson(Buffer.concat(chunks).toString('utf8')));
      } catch (e) {
        errors.push(e);
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: String(e.message) }));
        return;
      }
      const m = mode(entry);
      if (m === 'hang') { hung.add(res); return; }
      if (m === 503) { res.writeHead(503); res.end(); return; }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}', () => {
        entry.answered = true;
        received.push(...entry.spans);
      });
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${server.address().port}`;
  return {
    url, received, requests, errors,
    async close() {
      for (const res of hung) res.destroy();
      server.closeAllConnections?.();
      await new Promise((r) => server.close(r));
    },
  };
}
