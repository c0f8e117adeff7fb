// The SQL functions sql.js adds to every connection, from SQLite's public-domain
// contributed extension-functions.c (Liam Healy and others, 2010-02-06; the
// very file sql.js compiles, sha1 c68fa706d6d9ff98608044c00212473f9c14892f,
// kept unchanged in wasm/sqlite/). Only the functions SQLite lacks are
// registered: where SQLite has its own (acos, ceil, floor, log, pi, power,
// sign, sqrt, ...) its definition stays, as in sql.js with
// useOldExtensionFunctions: false (so log() stays base 10, not natural).
#include "sqlite/extension-functions.c"

typedef void (*PulseScalarFn)(sqlite3_context*, int, sqlite3_value**);
typedef void (*PulseFinalFn)(sqlite3_context*);

static const struct {
  const char* name;
  signed char n_arg;
  PulseScalarFn fn;
} kPulseScalars[] = {
    {"atn2", 2, atn2Func},          {"cot", 1, cotFunc},
    {"coth", 1, cothFunc},          {"square", 1, squareFunc},
    {"difference", 2, differenceFunc}, {"replicate", 2, replicateFunc},
    {"charindex", 2, charindexFunc}, {"charindex", 3, charindexFunc},
    {"leftstr", 2, leftFunc},       {"rightstr", 2, rightFunc},
    {"reverse", 1, reverseFunc},    {"proper", 1, properFunc},
    {"padl", 2, padlFunc},          {"padr", 2, padrFunc},
    {"padc", 2, padcFunc},          {"strfilter", 2, strfilterFunc},
};

static const struct {
  const char* name;
  PulseScalarFn step;
  PulseFinalFn final;
} kPulseAggregates[] = {
    {"stdev", varianceStep, stdevFinalize},
    {"variance", varianceStep, varianceFinalize},
    {"mode", modeStep, modeFinalize},
    {"median", modeStep, medianFinalize},
    {"lower_quartile", modeStep, lower_quartileFinalize},
    {"upper_quartile", modeStep, upper_quartileFinalize},
};

static int pulse_register_sqljs_functions(sqlite3* db, char** err, const sqlite3_api_routines* api) {
  (void)err;
  (void)api;
  for (size_t i = 0; i < sizeof(kPulseScalars) / sizeof(kPulseScalars[0]); i++) {
    int rc = sqlite3_create_function(db, kPulseScalars[i].name, kPulseScalars[i].n_arg, SQLITE_UTF8, 0,
                                     kPulseScalars[i].fn, 0, 0);
    if (rc != SQLITE_OK) return rc;
  }
  for (size_t i = 0; i < sizeof(kPulseAggregates) / sizeof(kPulseAggregates[0]); i++) {
    int rc = sqlite3_create_function(db, kPulseAggregates[i].name, 1, SQLITE_UTF8, 0, 0, kPulseAggregates[i].step,
                                     kPulseAggregates[i].final);
    if (rc != SQLITE_OK) return rc;
  }
  return SQLITE_OK;
}

// Every connection the module opens gets them: in-memory Databases, the
// OPFS pool's files and the Pulse facade's, as sql.js does on each open.
__attribute__((constructor)) static void pulse_sqljs_functions_auto(void) {
  sqlite3_auto_extension((void (*)(void))pulse_register_sqljs_functions);
}
