/* The physical limit for bench/anchors.mjs's CPU-bound SQL: the same
 * SQLite amalgamation the WASM module compiles, built natively (the native
 * build's flags), running the same work on an in-memory database: ROWS rows
 * inserted in one transaction, a covering index, then the aggregate the
 * WASM modules run, REPEAT times per round. Prints one JSON line with the
 * median round in milliseconds.
 *
 *   sql_bench [rows=100000] [repeat=20] [rounds=7]
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void check(int rc, sqlite3* db) {
  if (rc != SQLITE_OK && rc != SQLITE_ROW && rc != SQLITE_DONE) {
    fprintf(stderr, "sql_bench: %s\n", sqlite3_errmsg(db));
    exit(1);
  }
}

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
  int rows = argc > 1 ? atoi(argv[1]) : 100000;
  int repeat = argc > 2 ? atoi(argv[2]) : 20;
  int rounds = argc > 3 ? atoi(argv[3]) : 7;
  if (rows <= 0 || repeat <= 0 || rounds <= 0 || rounds > 100) {
    fprintf(stderr, "usage: sql_bench [rows>0] [repeat>0] [rounds 1-100]\n");
    return 2;
  }
  sqlite3* db = NULL;
  check(sqlite3_open(":memory:", &db), db);
  check(sqlite3_exec(db, "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL, value REAL, grp INTEGER)",
                     NULL, NULL, NULL), db);
  sqlite3_stmt* ins = NULL;
  check(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL), db);
  check(sqlite3_prepare_v2(db, "INSERT INTO t (id, name, value, grp) VALUES (?, ?, ?, ?)", -1, &ins, NULL), db);
  char name[32];
  for (int i = 0; i < rows; i++) {
    int n = snprintf(name, sizeof name, "name %d", i);
    sqlite3_bind_int(ins, 1, i);
    sqlite3_bind_text(ins, 2, name, n, SQLITE_TRANSIENT);
    sqlite3_bind_double(ins, 3, i * 0.5);
    sqlite3_bind_int(ins, 4, i % 100);
    check(sqlite3_step(ins), db);
    sqlite3_reset(ins);
  }
  sqlite3_finalize(ins);
  check(sqlite3_exec(db, "COMMIT; CREATE INDEX t_grp_value ON t (grp, value)", NULL, NULL, NULL), db);
  sqlite3_stmt* q = NULL;
  check(sqlite3_prepare_v2(db, "SELECT grp, count(*), sum(value), avg(value) FROM t GROUP BY grp", -1, &q, NULL), db);
  double times[100];
  long groups = 0;
  for (int r = 0; r < rounds; r++) {
    double t0 = now_ms();
    for (int k = 0; k < repeat; k++) {
      int rc;
      while ((rc = sqlite3_step(q)) == SQLITE_ROW) groups++;
      check(rc, db);
      sqlite3_reset(q);
    }
    times[r] = now_ms() - t0;
  }
  sqlite3_finalize(q);
  sqlite3_close(db);
  qsort(times, (size_t)rounds, sizeof times[0], cmp);
  printf("{\"rows\": %d, \"repeat\": %d, \"rounds\": %d, \"median_ms\": %.3f, \"groups\": %ld, \"sqlite\": \"%s\"}\n", rows,
         repeat, rounds, times[rounds / 2], groups / rounds / repeat, sqlite3_libversion());
  return 0;
}
