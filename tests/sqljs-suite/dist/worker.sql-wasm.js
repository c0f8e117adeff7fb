// Loader glue for the reference run: npm sql.js's own worker.
require('sql.js/dist/worker.sql-wasm.js');
