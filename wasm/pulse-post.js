// Appended to pulse.mjs (--post-js): Module.pulseCall(dbPtr, method,
// argsJson, nowSeconds) -> reply JSON string, over the C export pulse_call
// (wasm/pulse_bindings.cc). nowSeconds NaN means the real clock.
Module['pulseCall'] = function (dbPtr, method, argsJson, nowSeconds) {
  function cString(s) {
    var n = lengthBytesUTF8(s) + 1;
    var p = _malloc(n);
    stringToUTF8(s, p, n);
    return p;
  }
  var m = cString(String(method));
  var a = cString(String(argsJson));
  try {
    var out = _pulse_call(dbPtr >>> 0, m, a, Number(nowSeconds));
    if (!out) throw new Error('pulseCall: out of memory');
    try {
      return UTF8ToString(out);
    } finally {
      _free(out);
    }
  } finally {
    _free(m);
    _free(a);
  }
};
