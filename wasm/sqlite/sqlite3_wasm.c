// The SQLite amalgamation as the WASM build compiles it: the same pinned
// sqlite3.c, plus export helpers that need the pager, which only code in the
// amalgamation's own translation unit can reach. They let export() copy each
// page straight from the page cache into the JS result (one copy), where
// sqlite3_serialize first copies every page into the wasm heap (two).
#include "sqlite3.c"

static sqlite3_stmt* pulse_export_stmt = 0;  // holds the read transaction
static DbPage* pulse_export_held = 0;         // the page handed out last

// Starts an export of `db`'s main schema: returns the page count (and the
// page size in *page_size), or -1 with the error left on the connection.
// REQUIRES: pulse_export_end() before any other use of the connection.
int pulse_export_begin(sqlite3* db, int* page_size) {
  *page_size = 0;
  if (pulse_export_stmt) return -1;
  // While this statement sits on its row the read transaction stays open,
  // exactly as sqlite3_serialize does it.
  if (sqlite3_prepare_v2(db, "PRAGMA main.page_count", -1, &pulse_export_stmt, 0) != SQLITE_OK) {
    pulse_export_stmt = 0;
    return -1;
  }
  if (sqlite3_step(pulse_export_stmt) != SQLITE_ROW) {
    sqlite3_finalize(pulse_export_stmt);
    pulse_export_stmt = 0;
    return -1;
  }
  int pages = sqlite3_column_int(pulse_export_stmt, 0);
  if (pages == 0) {
    // A database never written has no page 1 yet; an empty write
    // transaction makes one, as sqlite3_serialize does.
    sqlite3_reset(pulse_export_stmt);
    sqlite3_exec(db, "BEGIN IMMEDIATE; COMMIT;", 0, 0, 0);
    if (sqlite3_step(pulse_export_stmt) != SQLITE_ROW) {
      sqlite3_finalize(pulse_export_stmt);
      pulse_export_stmt = 0;
      return -1;
    }
    pages = sqlite3_column_int(pulse_export_stmt, 0);
  }
  Btree* bt = sqlite3DbNameToBtree(db, "main");
  *page_size = bt ? sqlite3BtreeGetPageSize(bt) : 0;
  return pages;
}

// The bytes of page `pgno` (1-based), valid until the next call; 0 on error.
const unsigned char* pulse_export_page(sqlite3* db, int pgno) {
  if (pulse_export_held) {
    sqlite3PagerUnref(pulse_export_held);
    pulse_export_held = 0;
  }
  Btree* bt = sqlite3DbNameToBtree(db, "main");
  if (!bt) return 0;
  DbPage* page = 0;
  if (sqlite3PagerGet(sqlite3BtreePager(bt), (Pgno)pgno, &page, 0) != SQLITE_OK) {
    if (page) sqlite3PagerUnref(page);
    return 0;
  }
  pulse_export_held = page;
  return (const unsigned char*)sqlite3PagerGetData(page);
}

void pulse_export_end(void) {
  if (pulse_export_held) sqlite3PagerUnref(pulse_export_held);
  pulse_export_held = 0;
  if (pulse_export_stmt) sqlite3_finalize(pulse_export_stmt);
  pulse_export_stmt = 0;
}
