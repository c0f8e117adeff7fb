// The runner sandbox against the real `pulse serve`, tried as an attacker
// would, one real runner per leg. The test asks the kernel itself what it
// has (a landlock_create_ruleset version query through python's ctypes), so
// a server that says "unavailable" on a kernel with Landlock fails, and
// every denial the kernel can enforce must hold:
//   files   write soul.md / memory, read and write db/, read .pulse/;
//   proc    another process's /proc/<pid> (the server's environ, a
//           process whose command line holds an owner token);
//   signals SIGSTOP / SIGKILL to the server, SIGKILL to another process,
//           and an abstract unix socket made outside the sandbox;
//   descendants  setsid and double-forked children are dead after the turn
//           (cgroup and subreaper);
//   cleanup setsid children that swap folders of the temp dir for links to
//           soul.md's folder and .pulse/ while the server removes it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request, startServer, makeTempDir, buildSubstack, waitFor, runnerWritableDir } from './helpers.mjs';

const PYTHON = '/usr/bin/python3';
const SQLITE = '/usr/bin/sqlite3';
const ROOT = process.getuid() === 0;

// The kernel's Landlock ABI, asked directly: 0 when it has none.
function kernelLandlockAbi() {
  assert.ok(existsSync(PYTHON), `${PYTHON} is needed to probe the kernel (and by the runners here)`);
  const r = spawnSync(PYTHON, ['-c', [
    'import ctypes, platform',
    'nr = {"x86_64": 444, "aarch64": 444}[platform.machine()]',
    'libc = ctypes.CDLL(None, use_errno=True)',
    'print(max(0, libc.syscall(nr, None, 0, 1)))',  // LANDLOCK_CREATE_RULESET_VERSION
  ].join('\n')], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return Number(r.stdout.trim());
}
const ABI = kernelLandlockAbi();

// A workspace with the substack workflow in a fresh temp dir.
function setup(prefix) {
  const tmp = makeTempDir(prefix);
  const ws = join(tmp.dir, 'ws');
  buildSubstack(ws);
  const wf = join(ws, 'Workflow', 'substack');
  writeFileSync(join(wf, 'soul.md'), '# Grow to 1000 subscribers\n');
  mkdirSync(join(wf, 'memory'), { recursive: true });
  writeFileSync(join(wf, 'memory', 'goal.md'), '# Goal memory\n');
  return { tmp, ws, wf };
}

// One owner message, one runner turn: its finished agent-log row.
async function turn(s) {
  const t = (await request(`${s.url}api/workflows/substack/messages`, { method: 'POST', token: s.ownerToken, body: { text: 'hi' } }));
  assert.equal(t.status, 202, JSON.stringify(t.body));
  return waitFor(async () => {
    const log = await request(`${s.url}api/workflows/substack/agent-log?run_id=${t.body.turn.pulse_run_id}`);
    assert.equal(log.status, 200, `the workflow cannot be read any more: ${log.text}`);
    return log.body.rows.length === 1 && log.body.rows[0].status !== 'running' ? log.body.rows[0] : null;
  }, { what: 'the runner turn', timeoutMs: 60000 });
}

// "name=value" lines of a runner's reply.
const lines = (text) => Object.fromEntries(text.trim().split('\n').filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));

const leg = (health, name) => health.sandbox_legs.find((l) => l.leg === name);

// Each attempt prints NAME=ok, NAME=denied, or NAME=missing when the program
// is not there at all (exit 127): a missing tool never passes as a denial.
const TRY = `try() { name=$1; shift; "$@" >/dev/null 2>&1; rc=$?
  if [ $rc -eq 0 ]; then echo "$name=ok"; elif [ $rc -eq 127 ]; then echo "$name=missing"; else echo "$name=denied"; fi; }`;

const FILES_RUNNER = (extraOut) => `#!/bin/sh
${TRY}
cat >/dev/null
try shell_soul sh -c 'echo x>soul.md'
try python_soul ${PYTHON} -c "open('soul.md','w').write('x')"
try cat_pulse sh -c 'cat ../../.pulse/owner-token* ../../.pulse/*'
try ls_pulse ls ../../.pulse
try read_db cat db/db.sqlite
try python_db ${PYTHON} -c "import sqlite3; c=sqlite3.connect('db/db.sqlite'); c.execute('create table evil(x)'); c.commit()"
try sqlite_db ${SQLITE} db/db.sqlite 'create table evil2(x)'
try memory sh -c 'echo x >> memory/goal.md'
try read_soul cat soul.md
try work sh -c 'echo note > pulse/work/note.txt'
try tmp sh -c 'echo t > "$TMPDIR/t" && cat "$TMPDIR/t"'
try extra sh -c 'echo e > ${extraOut}/e.txt'
env > pulse/work/env.txt
/usr/bin/node -e '
fetch(process.env.MCP_API_URL, { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer " + process.env.MCP_API_TOKEN },
  body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_pulse_state", arguments: { view: "goal_status" } } }) })
  .then((r) => r.json()).then((j) => console.log("mcp=" + (j.result && !j.result.isError ? "ok" : "denied")), () => console.log("mcp=denied"));'
`;

// Run as root, each leg is tried twice: as the default runner user (nobody)
// and with --runner-user root, where Landlock alone must hold.
const USERS = ROOT ? ['default', 'root'] : ['default'];

for (const user of USERS) {
  const userArgs = user === 'root' ? ['--runner-user', 'root'] : [];
  const dropped = ROOT && user === 'default';
test(`the server reports what this kernel enforces, and a runner (${user} user) cannot touch soul.md, .pulse/ or the database yet still works`, async () => {
  const { tmp, ws, wf } = setup('pulse-sandbox-files-');
  const extra = runnerWritableDir(join(tmp.dir, 'extra-out'));
  const script = join(tmp.dir, 'runner.sh');
  writeFileSync(script, FILES_RUNNER(extra));
  const s = await startServer(ws, ['--no-tick', '--runner', `sh ${script}`, '--runner-timeout', '60',
    '--sandbox-allow-read', script, '--sandbox-allow-write', extra, ...userArgs],
  // Whatever the server's own environment holds of Pulse's is not the runner's.
  { env: { PULSE_OWNER_TOKEN: 'owner-secret-in-env', MCP_API_TOKEN: 'outer-token' } });
  try {
    const health = (await request(`${s.url}api/health`)).body;
    // The kernel, not the server, says what must hold.
    if (ABI > 0) assert.equal(health.sandbox, `landlock abi ${ABI}`, 'the kernel has Landlock but the server does not use it');
    else assert.match(health.sandbox, /^unavailable: /);
    const expected = {
      files: ABI > 0, proc: ABI > 0, signals: ABI >= 6 || dropped, abstract_unix_sockets: ABI >= 6,
      descendants: true, runner_user: dropped, cleanup: true,
    };
    assert.deepEqual(Object.fromEntries(health.sandbox_legs.map((l) => [l.leg, l.enforced])), expected, JSON.stringify(health.sandbox_legs));
    assert.deepEqual(health.sandbox_unenforced, Object.keys(expected).filter((k) => !expected[k]));
    for (const l of health.sandbox_legs) assert.ok(l.how.length > 10, `${l.leg} says how`);
    if (dropped) assert.match(leg(health, 'runner_user').how, /^runs as nobody \(uid 65534\)$/);

    const row = await turn(s);
    assert.equal(row.status, 'completed', JSON.stringify(row));
    const seen = lines(row.result);
    // Without Landlock only the runner user's file permissions hold.
    const held = ABI > 0 || dropped ? 'denied' : 'ok';
    const want = {
      shell_soul: held, python_soul: held, cat_pulse: held, ls_pulse: held,
      read_db: held, python_db: held, sqlite_db: held, memory: held,
      read_soul: 'ok', work: 'ok', tmp: 'ok', extra: 'ok', mcp: 'ok',
    };
    assert.deepEqual(seen, want, row.result);
    assert.equal(readFileSync(join(wf, 'soul.md'), 'utf8'), '# Grow to 1000 subscribers\n');
    assert.equal(readFileSync(join(wf, 'memory', 'goal.md'), 'utf8'), '# Goal memory\n');
    assert.equal(readFileSync(join(wf, 'pulse', 'work', 'note.txt'), 'utf8'), 'note\n');
    assert.doesNotMatch(spawnSync(SQLITE, [join(wf, 'db', 'db.sqlite'), '.tables'], { encoding: 'utf8' }).stdout, /evil/);
    // Its environment: its own session's endpoint and token, nothing of the owner's.
    const env = readFileSync(join(wf, 'pulse', 'work', 'env.txt'), 'utf8');
    assert.ok(!env.includes(s.ownerToken), 'the owner token reached a runner');
    assert.doesNotMatch(env, /owner-secret-in-env|outer-token/);
    assert.match(env, /^PULSE_SESSION=\S+$/m);
    assert.match(env, /^MCP_API_TOKEN=\S{16,}$/m);
    assert.match(env, /^TMPDIR=\S*pulse-runner-/m);
    if (dropped) assert.match(env, /^USER=nobody$/m);
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});
}

// The attacker reads what the test writes once the server runs: the
// server's pid, a process holding a token on its command line, an abstract
// socket's name. Started as the runner itself (sh -c execs it), so its own
// /proc/self is its own pid's.
const PROC_RUNNER = `import os, signal, socket, sys
sys.stdin.read()
server, decoy, abstract = open(sys.argv[1]).read().split()
server, decoy = int(server), int(decoy)
out = {}
def attempt(name, fn):
    try:
        fn()
        out[name] = 'ok'
    except PermissionError:
        out[name] = 'denied'
    except OSError as e:
        out[name] = 'error ' + type(e).__name__
attempt('self_status', lambda: open('/proc/self/status').read())
attempt('cpuinfo', lambda: open('/proc/cpuinfo').read())
attempt('list_proc', lambda: os.listdir('/proc'))
attempt('server_environ', lambda: open('/proc/%d/environ' % server, 'rb').read())
attempt('server_cmdline', lambda: open('/proc/%d/cmdline' % server, 'rb').read())
attempt('decoy_cmdline', lambda: open('/proc/%d/cmdline' % decoy, 'rb').read())
# Every pid near the decoy's, as a scan for a bearer token would.
seen = 0
for pid in range(max(1, decoy - 2000), decoy + 2000):
    try:
        if b'Bearer' in open('/proc/%d/cmdline' % pid, 'rb').read(): seen += 1
    except OSError:
        pass
out['token_seen'] = str(seen)
def stop_server():
    os.kill(server, signal.SIGSTOP)
    os.kill(server, signal.SIGCONT)
attempt('stop_server', stop_server)
attempt('kill_decoy', lambda: os.kill(decoy, signal.SIGKILL))
def abstract_socket():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect('\\0' + abstract)
    s.close()
attempt('abstract_socket', abstract_socket)
print('\\n'.join('%s=%s' % kv for kv in out.items()), flush=True)
# The last word: if this works there is no server left to record the turn.
try:
    os.kill(server, signal.SIGKILL)
except OSError:
    pass
`;

for (const user of USERS) {
  const userArgs = user === 'root' ? ['--runner-user', 'root'] : [];
  const dropped = ROOT && user === 'default';
test(`a runner (${user} user) sees only its own /proc and cannot signal the server, another process or an outside abstract socket`, async () => {
  const { tmp, ws } = setup('pulse-sandbox-proc-');
  const script = join(tmp.dir, 'attack.py');
  writeFileSync(script, PROC_RUNNER);
  const facts = join(tmp.dir, 'facts');
  writeFileSync(facts, '');
  // A process outside the sandbox with the owner's token on its command line
  // (a curl as the old docs showed), listening on an abstract unix socket.
  const abstractName = `pulse-test-${process.pid}-${Date.now()}`;
  const decoy = spawn(PYTHON, ['-c', [
    'import socket, sys, time',
    's = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)',
    `s.bind("\\0${abstractName}")`,
    's.listen(8)',
    'print("listening", flush=True)',
    'time.sleep(120)',
  ].join('\n'), '-H', 'Authorization: Bearer SECRET-owner-token'], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve) => decoy.stdout.once('data', resolve));
  const s = await startServer(ws, ['--no-tick', '--runner', `${PYTHON} ${script} ${facts}`, '--runner-timeout', '60',
    '--sandbox-allow-read', script, '--sandbox-allow-read', facts, ...userArgs],
  { env: { PULSE_SECRET_IN_SERVER_ENV: 'server-env-secret' } });
  try {
    writeFileSync(facts, `${s.proc.pid} ${decoy.pid} ${abstractName}\n`);
    const health = (await request(`${s.url}api/health`)).body;
    const row = await turn(s);
    assert.equal(row.status, 'completed', JSON.stringify(row));
    const seen = lines(row.result);
    const proc = leg(health, 'proc').enforced;
    const signals = leg(health, 'signals').enforced;
    const sockets = leg(health, 'abstract_unix_sockets').enforced;
    assert.equal(proc, ABI > 0);
    assert.equal(signals, ABI >= 6 || dropped);
    assert.equal(sockets, ABI >= 6);
    assert.deepEqual(seen, {
      self_status: 'ok', cpuinfo: 'ok',
      list_proc: proc ? 'denied' : 'ok',
      server_environ: proc || dropped ? 'denied' : 'ok',
      server_cmdline: proc ? 'denied' : 'ok',
      decoy_cmdline: proc ? 'denied' : 'ok',
      token_seen: proc ? '0' : '1',
      stop_server: signals ? 'denied' : 'ok',
      kill_decoy: signals ? 'denied' : 'ok',
      abstract_socket: sockets ? 'denied' : 'ok',
    }, row.result);
    // The server is still there, not stopped: it answers.
    assert.equal((await request(`${s.url}api/health`)).status, 200);
    assert.equal(decoy.exitCode, null, 'the decoy process was killed by the runner');
  } finally {
    await s.stop();
    decoy.kill('SIGKILL');
    tmp.cleanup();
  }
});
}

// setsid, a double fork, and a setsid python that ignores SIGTERM: their
// pids go to pulse/work/pids, then the runner exits at once.
const ESCAPE_RUNNER = `#!/bin/sh
cat >/dev/null
setsid sh -c 'echo $$ >> pulse/work/pids; exec sleep 300' </dev/null >/dev/null 2>&1 &
( sh -c 'sleep 301 & echo $! >> pulse/work/pids' & ) </dev/null >/dev/null 2>&1
${PYTHON} -c '
import os, signal, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        open("pulse/work/pids", "a").write("%d\\n" % os.getpid())
        time.sleep(300)
    os._exit(0)
' </dev/null >/dev/null 2>&1
while [ "$(wc -l < pulse/work/pids)" -lt 3 ]; do sleep 0.05; done
echo started
`;

// Alive means a process that is not a zombie.
function alive(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

for (const tracking of ['auto', 'subreaper']) {
  test(`nothing a runner starts outlives its turn (--runner-tracking ${tracking}): setsid and double forks are dead`, async () => {
    const { tmp, ws, wf } = setup(`pulse-sandbox-tree-${tracking}-`);
    const script = join(tmp.dir, 'escape.sh');
    writeFileSync(script, ESCAPE_RUNNER);
    const s = await startServer(ws, ['--no-tick', '--runner', `sh ${script}`, '--runner-timeout', '60',
      '--sandbox-allow-read', script, '--runner-tracking', tracking]);
    try {
      const health = (await request(`${s.url}api/health`)).body;
      const how = leg(health, 'descendants').how;
      if (tracking === 'subreaper') assert.match(how, /subreaper/);
      const row = await turn(s);
      assert.equal(row.status, 'completed', JSON.stringify(row));
      const pids = readFileSync(join(wf, 'pulse', 'work', 'pids'), 'utf8').trim().split('\n').map(Number);
      assert.equal(pids.length, 3);
      // The turn is recorded once everything it started is gone: no waiting.
      assert.deepEqual(pids.filter(alive), [], `${how}: still running after the turn: ${pids.filter(alive)}`);
    } finally {
      await s.stop();
      tmp.cleanup();
    }
  });
}

// The cleanup race, as a runner's leftover children play it. In its temp
// dir the runner makes a folder per target holding a big file (listed first)
// and a file named like the target (soul.md, the owner token's hash,
// workflow.json); a setsid grandchild per folder waits (inotify) until the
// server removes the big file, and while the server is still freeing its
// pages moves the folder away and puts a link to the target's folder in its
// place. A removal by full paths (nftw + remove, as the server did) then
// removes the target itself: in 5 of 6 turns tried. The helper is C:
// a woken python comes too late.
const SWAP_C = `#define _GNU_SOURCE
#include <stdio.h>
#include <sys/inotify.h>
#include <unistd.h>
int main(int argc, char** argv) {
  if (argc != 3) return 2;
  int fd = inotify_init1(IN_CLOEXEC);
  if (fd < 0 || inotify_add_watch(fd, argv[1], IN_DELETE) < 0) return 1;
  if (fork() != 0) return 0;
  setsid();
  if (fork() != 0) return 0;
  char events[4096], moved[4096];
  if (read(fd, events, sizeof events) <= 0) return 1;
  snprintf(moved, sizeof moved, "%s.moved", argv[1]);
  if (rename(argv[1], moved) == 0) symlink(argv[2], argv[1]);
  return 0;
}
`;

const RACE_RUNNER = `import os, subprocess, sys
sys.stdin.read()
tmp, swap = os.environ['TMPDIR'], sys.argv[1]
for i, (target, name) in enumerate(zip(sys.argv[2::2], sys.argv[3::2])):
    d = '%s/d%d' % (tmp, i)
    os.mkdir(d)
    open(os.path.join(d, name), 'w').write('decoy')
    big = os.path.join(d, 'big')
    with open(big, 'wb') as f:
        f.write(b'x' * (8 << 20))
    n = 0
    while os.listdir(d)[0] != os.path.basename(big):
        n += 1
        os.rename(big, os.path.join(d, 'big%d' % n))
        big = os.path.join(d, 'big%d' % n)
    subprocess.run([swap, d, target], check=True)
print('planted')
`;

test('removing a runner\'s temp dir follows no link: children that swap its folders for links lose every time', async () => {
  const { tmp, ws, wf } = setup('pulse-sandbox-race-');
  const cc = spawnSync('cc', ['-O2', '-x', 'c', '-o', join(tmp.dir, 'swap'), '-'], { input: SWAP_C, encoding: 'utf8' });
  assert.equal(cc.status, 0, `cc (the C compiler, from build-essential) is needed here: ${cc.error || cc.stderr}`);
  const script = join(tmp.dir, 'race.py');
  writeFileSync(script, RACE_RUNNER);
  const dotPulse = join(ws, '.pulse');
  const runner = [PYTHON, script, join(tmp.dir, 'swap'), wf, 'soul.md', dotPulse, 'owner-token.sha256', wf, 'workflow.json'];
  const s = await startServer(ws, ['--no-tick', '--runner', runner.join(' '), '--runner-timeout', '60',
    '--sandbox-allow-read', script, '--sandbox-allow-read', join(tmp.dir, 'swap')]);
  try {
    const kept = {
      soul: [join(wf, 'soul.md'), readFileSync(join(wf, 'soul.md'), 'utf8')],
      config: [join(wf, 'workflow.json'), readFileSync(join(wf, 'workflow.json'), 'utf8')],
      token: [join(dotPulse, 'owner-token.sha256'), readFileSync(join(dotPulse, 'owner-token.sha256'), 'utf8')],
    };
    for (let round = 0; round < 6; round++) {
      const row = await turn(s);
      assert.equal(row.status, 'completed', `round ${round}: ${JSON.stringify(row)}`);
      assert.equal(row.result.trim(), 'planted');
      for (const [what, [path, text]] of Object.entries(kept)) {
        assert.ok(existsSync(path), `round ${round}: ${what} (${path}) was removed through a link`);
        assert.equal(readFileSync(path, 'utf8'), text, `round ${round}: ${what}`);
      }
    }
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});

