// Loader glue for the reference run: npm sql.js itself.
module.exports = require('sql.js/dist/sql-wasm.js');
