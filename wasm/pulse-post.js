// Appended to pulse.mjs (--post-js): Module.Pulse, the JS face of the Embind
// facade (Module.PulseFacade, wasm/pulse_bindings.cc). What it adds to the
// bindings is only what a JS caller needs at the boundary:
//  - every failure is thrown as an Error with .message and .code (a core
//    Status code name: invalid_argument, not_found, ..., or internal), never
//    a bare number (a C++ exception) and never an Error without a code;
//  - times are taken as seconds, a Date or an RFC 3339 string;
//  - the facade (a C++ object) is kept across calls: it holds the opened
//    workflow (schema ensured, configuration read, looked at again only
//    when the database changed) and the typed agent-log recorders'
//    prepared statements; close() frees it, as does collecting the Pulse
//    object.
var pulseFacades = typeof FinalizationRegistry === 'function'
  ? new FinalizationRegistry(function (facade) { if (!facade.isDeleted()) facade.delete(); })
  : null;

function pulseError(message, code) {
  var err = new Error(message);
  err.code = code;
  return err;
}

// Any throw that reaches JS from the module, as an Error with a code.
function pulseErrorOf(e, what) {
  if (e instanceof Error) {
    if (e.code === undefined) {
      // Embind refuses a value of the wrong type with a TypeError or a
      // BindingError; anything else (a trap, a stack overflow) is ours.
      e.code = e instanceof TypeError || e.name === 'BindingError' ? 'invalid_argument' : 'internal';
      e.message = what + ': ' + e.message;
    }
    return e;
  }
  // A C++ exception arrives as a number (its address in the module).
  return pulseError(what + ': internal error in the WASM module (' + (typeof e === 'number' ? 'C++ exception' : String(e)) + ')', 'internal');
}

// Runs one crossing: restores the module's stack if a throw skipped the
// C++ epilogues, and throws the Error value a binding returns.
function pulseSettle(what, fn) {
  var sp = stackSave();
  var out;
  try {
    out = fn();
  } catch (e) {
    stackRestore(sp);
    throw pulseErrorOf(e, what);
  }
  if (out instanceof Error) throw out;
  return out;
}

// Seconds since the epoch from a number, a Date or an RFC 3339 string;
// NaN when `value` is null or undefined ("the clock").
function pulseSeconds(value, what, key) {
  if (value === undefined || value === null) return NaN;
  var s = NaN;
  if (value instanceof Date) s = Math.floor(value.getTime() / 1000);
  else if (typeof value === 'string') s = Math.floor(Date.parse(value) / 1000);
  else if (typeof value === 'number') s = value;
  if (!Number.isFinite(s)) throw pulseError(what + ': "' + key + '" is not a valid time: ' + value, 'invalid_argument');
  return s;
}

function pulseText(event, key, what, fallback) {
  var v = event[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'string') throw pulseError(what + ': "' + key + '" must be a string', 'invalid_argument');
  return v;
}

// The typed recorders' values (AgentStart, AgentCompletion in
// pulse_bindings.cc): [field, default when absent].
var PULSE_EVENTS = {
  agentStarted: { what: 'agent_log.started', fields: [['session', ''], ['agent', ''], ['name', ''], ['kind', ''],
    ['parent', ''], ['pulse_run_id', '']] },
  agentCompleted: { what: 'agent_log.completed', fields: [['session', ''], ['agent', ''], ['status', 'completed'],
    ['result', ''], ['error', ''], ['duration', '']] },
};

class Pulse {
  // `database`: a Database of this module, or null for the methods that
  // need none (pulse.version, autonomy.guard, ...).
  constructor(database) {
    this.database = database || null;
    this.kept = null;  // {ptr, facade}: the facade every call goes through
  }

  // The connection of the database, checked open (0 when none).
  connection(what) {
    if (!this.database) return 0;
    var ptr = this.database.db;
    if (!ptr) throw pulseError(what + ': the database is closed', 'invalid_argument');
    return ptr;
  }

  // A core API method by name (docs/wasm.md): its result, or a thrown Error
  // with .code. `now`: seconds, a Date or an RFC 3339 string (default: the clock).
  call(method, args, options) {
    var what = String(method);
    var nowSeconds = pulseSeconds(options && options.now, what, 'now');
    var argsJson;
    try {
      argsJson = JSON.stringify(args === undefined || args === null ? {} : args);
    } catch (e) {
      throw pulseError(what + ': arguments cannot be sent as JSON: ' + e.message, 'invalid_argument');
    }
    var facade = this.facadeFor(what);
    return pulseSettle(what, function () { return facade.call(what, argsJson, nowSeconds); });
  }

  // The facade kept for this database's connection, remade when the
  // connection changed.
  facadeFor(what) {
    var ptr = this.connection(what);
    if (this.kept && this.kept.ptr === ptr) return this.kept.facade;
    this.close();
    var facade = new Module['PulseFacade'](ptr);
    this.kept = { ptr: ptr, facade: facade };
    if (pulseFacades) pulseFacades.register(this, facade, this);
    return facade;
  }

  // agent_log.started as a typed call (no JSON): {session, agent, name?,
  // kind?, parent?, pulse_run_id?, at?} -> {recorded, warning}.
  agentStarted(event, options) {
    return this.record('agentStarted', event, options);
  }

  // agent_log.completed as a typed call: {session, agent, status?, result?,
  // error?, duration? (text, or seconds as a number), at?} -> {recorded, warning}.
  agentCompleted(event, options) {
    return this.record('agentCompleted', event, options);
  }

  // One event through the facade's typed recorder `kind`: every field of
  // the Embind value is present (its type is checked here, its rules in the core).
  record(kind, event, options) {
    var spec = PULSE_EVENTS[kind];
    var e = event || {};
    var value = { at: pulseSeconds(e.at, spec.what, 'at') };
    for (var i = 0; i < spec.fields.length; i++) {
      var key = spec.fields[i][0];
      value[key] = key === 'duration' && typeof e.duration === 'number'
        ? e.duration + 's' : pulseText(e, key, spec.what, spec.fields[i][1]);
    }
    var now = pulseSeconds(options && options.now, spec.what, 'now');
    var facade = this.facadeFor(spec.what);
    return pulseSettle(spec.what, function () { return facade[kind](value, now); });
  }

  // Frees the kept facade (the opened workflow, the recorders'
  // statements); the Pulse object stays usable.
  close() {
    if (!this.kept) return;
    if (pulseFacades) pulseFacades.unregister(this);
    if (!this.kept.facade.isDeleted()) this.kept.facade.delete();
    this.kept = null;
  }
}

Module['Pulse'] = Pulse;
