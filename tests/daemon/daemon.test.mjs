// cuzk-daemon end to end through a real gRPC client: @grpc/grpc-js with the service loaded from
// proto/cuzk/v1/proving.proto at run time by @grpc/proto-loader (so the test speaks the .proto, not the
// daemon's generated code). Over a unix socket in a temporary directory.
//
//   node daemon.test.mjs DAEMON_BINARY PROTO_DIR
//   node daemon.test.mjs DAEMON_BINARY PROTO_DIR --porep PARAM_DIR C1_DIR CUZK_BINARY
//   node daemon.test.mjs DAEMON_BINARY PROTO_DIR --post PARAM_DIR DATA_DIR CUZK_BINARY
// The second form runs only the PoRep C2 checks (porep.sh prepares them): PARAM_DIR holds porep-2k.params and
// porep-2k.vk, C1_DIR the 2 KiB C1 files c1.json and c1-envelope.json; proofs are checked with `cuzk verify`.
// The third runs only the PoSt checks (post.sh prepares them): PARAM_DIR holds wpost-2k.params/.vk, DATA_DIR the
// vanilla proofs of sealed 2 KiB sectors (w.json, w-info.json: WindowPoSt; g.json, g-info.json: WinningPoSt, when
// winning-2k.params/.vk are there too); proofs are checked with `cuzk verify-post`.
//
// Exit status 0 when every check passed, 1 otherwise. The daemon's log is printed on failure.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const [daemonBin, protoDir] = process.argv.slice(2);
if (!daemonBin || !protoDir) {
  console.error('usage: node daemon.test.mjs DAEMON_BINARY PROTO_DIR');
  process.exit(2);
}

const porepArg = process.argv.indexOf('--porep');
const porep = porepArg > 0 ? { params: process.argv[porepArg + 1], c1: process.argv[porepArg + 2],
  cuzk: process.argv[porepArg + 3] } : null;
if (porep && !(porep.params && porep.c1 && porep.cuzk)) {
  console.error('usage: node daemon.test.mjs DAEMON_BINARY PROTO_DIR --porep PARAM_DIR C1_DIR CUZK_BINARY');
  process.exit(2);
}

const postArg = process.argv.indexOf('--post');
const post = postArg > 0 ? { params: process.argv[postArg + 1], data: process.argv[postArg + 2],
  cuzk: process.argv[postArg + 3] } : null;
if (post && !(post.params && post.data && post.cuzk)) {
  console.error('usage: node daemon.test.mjs DAEMON_BINARY PROTO_DIR --post PARAM_DIR DATA_DIR CUZK_BINARY');
  process.exit(2);
}

const MIB = 1024 * 1024;
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cuzk-daemon-'));
// Under directories that do not exist yet: the daemon makes them (as /run/curio).
const sock = path.join(work, 'run', 'curio', 'cuzk.sock');
const addr = `unix:${sock}`;
const cfgPath = path.join(work, 'cuzk.toml');
fs.writeFileSync(cfgPath, `# test configuration
[daemon]
listen = "${addr}"
${porep ? '' : 'status_listen = "127.0.0.1:0"   # HTTP GET /status on a free loopback port (logged)'}
[memory]
total_budget = "2GiB"
[gpus]
gpu_threads = 2
gpu_workers_per_device = 2
[synthesis]
threads = 1
[pipeline]
max_parallel_synthesis = 2
[srs]
preload = ["porep-32g"]   # deprecated: a warning, not an error
param_cache = "${porep ? path.resolve(porep.params) : post ? path.resolve(post.params) : work}"
mapped = ${porep ? 'true' : 'false'}   # PoRep: the memory-mapped cache <param_cache>/porep-2k.params.cuzk-map
[logging]
level = "info"
`);

let failures = 0, checks = 0;
function check(cond, what) {
  checks++;
  if (!cond) {
    failures++;
    console.error(`FAIL: ${what}`);
  }
}

const pkgDef = protoLoader.loadSync('cuzk/v1/proving.proto', {
  keepCase: true, longs: Number, enums: String, defaults: true, includeDirs: [path.resolve(protoDir)],
});
const v1 = grpc.loadPackageDefinition(pkgDef).cuzk.v1;
const clientOpts = {
  'grpc.max_receive_message_length': 300 * MIB,
  'grpc.max_send_message_length': 300 * MIB,
};
let client = null;

function newClient() {
  if (client) client.close();
  client = new v1.ProvingEngine(addr, grpc.credentials.createInsecure(), clientOpts);
}

// A unary call as a promise of {err, res}.
function call(method, req, deadlineMs = 60000) {
  return new Promise((resolve) => {
    client[method](req, { deadline: Date.now() + deadlineMs }, (err, res) => resolve({ err, res }));
  });
}

// A raw call: the request bytes as given, the response bytes back.
function rawCall(method, bytes, deadlineMs = 30000) {
  const raw = new grpc.Client(addr, grpc.credentials.createInsecure(), clientOpts);
  return new Promise((resolve) => {
    raw.makeUnaryRequest(`/cuzk.v1.ProvingEngine/${method}`, (b) => b, (b) => b, bytes,
      { deadline: Date.now() + deadlineMs }, (err, res) => { raw.close(); resolve({ err, res }); });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---- the daemon process ----
let daemon = null, daemonLog = '';
function startDaemon() {
  const p = spawn(daemonBin, ['--config', cfgPath], { stdio: ['ignore', 'pipe', 'pipe'] });
  p.stdout.on('data', (d) => { daemonLog += d; });
  p.stderr.on('data', (d) => { daemonLog += d; });
  p.exitInfo = new Promise((resolve) => p.on('exit', (code, signal) => resolve({ code, signal })));
  daemon = p;
  return p;
}

async function waitServing(timeoutMs = 20000) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (fs.existsSync(sock)) {
      newClient();
      const { err } = await call('GetStatus', {}, 2000);
      if (!err) return true;
    }
    await sleep(50);
  }
  return false;
}

// HTTP GET of the daemon's status page with curl (a real HTTP client): {code, body}, or null without curl.
function httpGet(urlPath, method = 'GET') {
  const m = daemonLog.match(/serving HTTP GET \/status on \S+ \(port (\d+)\)/g);
  if (!m) return { code: 0, body: 'no HTTP port in the log' };
  const port = m[m.length - 1].match(/port (\d+)/)[1];
  const c = spawnSync('curl', ['-s', '-m', '5', '-X', method, '-w', '\n%{http_code}', `http://127.0.0.1:${port}${urlPath}`],
    { encoding: 'utf8' });
  if (c.error) return null;
  const nl = c.stdout.lastIndexOf('\n');
  return { code: Number(c.stdout.slice(nl + 1)), body: c.stdout.slice(0, nl) };
}

function statusOf(r) { return r.res && (r.res.status || (r.res.result && r.res.result.status)); }

function counts(st) {
  return { completed: Number(st.total_proofs_completed), failed: Number(st.total_proofs_failed),
           cancelled: Number(st.total_proofs_cancelled) };
}

// Each 192-byte proof: A (G1), B (G2), C (G1) compressed, as bellperson writes them: the compression flag
// set, never the point at infinity, and distinct x coordinates for A and C.
function proofWellFormed(buf, partitions) {
  if (buf.length !== 192 * partitions) return false;
  for (let i = 0; i < partitions; i++) {
    const p = buf.subarray(192 * i, 192 * (i + 1));
    for (const off of [0, 48, 144]) {
      if ((p[off] & 0x80) === 0 || (p[off] & 0x40) !== 0) return false;
    }
    if (Buffer.compare(p.subarray(0, 48), p.subarray(144, 192)) === 0) return false;
  }
  return true;
}

async function waitInProgress(kind, timeoutMs = 20000) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const { res } = await call('GetStatus', {});
    const q = res && res.queues.find((x) => x.proof_kind === kind);
    if (q && q.in_progress > 0) return true;
    await sleep(20);
  }
  return false;
}

const circuit = (k, partitions, extra = {}) => ({
  proof_kind: 'CIRCUIT_SPEC', circuit: `synthetic:k=${k}`, partitions, ...extra,
});

async function main() {
  const t0 = Date.now();
  startDaemon();
  check(await waitServing(), 'the daemon serves GetStatus after start');
  check(/srs\.preload is deprecated/.test(daemonLog), 'a deprecated config key is warned about');

  // ---- status before any job ----
  let r = await call('GetStatus', {});
  check(!r.err, `GetStatus: ${r.err}`);
  const st0 = r.res;
  check(st0.queues.length === 5 && st0.queues.some((q) => q.proof_kind === 'porep-c2'), 'five queues, Rust labels');
  check(Number(st0.memory_budget_bytes) === 2 * 1024 * MIB, 'the budget from memory.total_budget');
  check(counts(st0).completed === 0 && counts(st0).failed === 0, 'no proofs yet');

  // ---- Prove (the working kind) ----
  r = await call('Prove', { submit: circuit(8, 2, { request_id: 'prove-1' }) });
  check(!r.err && statusOf(r) === 'COMPLETED', `Prove k=8: ${r.err || JSON.stringify(r.res && r.res.result)}`);
  const p1 = r.res && r.res.result;
  check(p1 && p1.job_id === 'prove-1', 'Prove answers with the request_id as job id');
  check(p1 && proofWellFormed(p1.proof, 2), 'two well-formed 192-byte proofs');
  check(p1 && p1.verified === true, 'the daemon verified the proofs');
  check(p1 && Number(p1.total_ms) > 0 && Number(p1.total_ms) >= Number(p1.gpu_compute_ms) / 2, 'timings are filled');

  // ---- HTTP GET /status (daemon.status_listen), the Rust daemon's JSON ----
  let h = httpGet('/status');
  if (h === null) {
    console.log('HTTP status: skipped, no curl');
  } else {
    let js = null;
    try { js = JSON.parse(h.body); } catch (e) { js = null; }
    check(h.code === 200 && js, `GET /status: 200 and JSON (${h.code} ${h.body.slice(0, 200)})`);
    if (js) {
      check(js.memory.total_bytes === 2 * 1024 * MIB && js.memory.used_bytes + js.memory.available_bytes === js.memory.total_bytes,
        'GET /status: memory from the budget');
      check(js.counters.total_completed === 1 && js.counters.completed_by_kind.circuit === 1 &&
        js.counters.total_failed === 0, `GET /status: counters (${JSON.stringify(js.counters)})`);
      check(Array.isArray(js.pipelines) && Array.isArray(js.gpu_workers) && Array.isArray(js.allocations.srs) &&
        js.synthesis.max_concurrent === 2 && typeof js.uptime_secs === 'number' && js.buffers,
        'GET /status: the Rust fields');
      check(js.allocations.srs.some((x) => x.circuit_id === 'synthetic:k=8,seed=1' && x.bytes > 0),
        `GET /status: the parameter set in memory (${JSON.stringify(js.allocations.srs)})`);
    }
    h = httpGet('/nothing-here');
    check(h.code === 404, `GET /nothing-here: 404 (${h.code})`);
    h = httpGet('/status', 'POST');
    check(h.code === 405, `POST /status: 405 (${h.code})`);
  }

  // ---- SubmitProof / AwaitProof, idempotent request_id ----
  r = await call('SubmitProof', circuit(8, 1, { request_id: 'sub-1', priority: 'HIGH' }));
  check(!r.err && r.res.job_id === 'sub-1', `SubmitProof: ${r.err}`);
  r = await call('AwaitProof', { job_id: 'sub-1', timeout_ms: 0 });
  check(!r.err && r.res.status === 'COMPLETED' && proofWellFormed(r.res.proof, 1), `AwaitProof sub-1: ${r.err}`);
  const proofSub1 = r.res && r.res.proof;
  r = await call('SubmitProof', circuit(8, 1, { request_id: 'sub-1' }));
  check(!r.err && r.res.job_id === 'sub-1', 'the same request_id again: the same job');
  r = await call('AwaitProof', { job_id: 'sub-1' });
  check(!r.err && proofSub1 && Buffer.compare(r.res.proof, proofSub1) === 0, 'the same proof, not a second one');
  r = await call('Prove', { submit: circuit(8, 1, { request_id: 'prove-2' }) });
  check(!r.err && p1 && Buffer.compare(r.res.result.proof, p1.proof.subarray(0, 192)) !== 0,
    'a new job of the same statement gets a fresh (re-randomised) proof');
  r = await call('GetStatus', {});
  check(counts(r.res).completed === 3, `3 proofs completed, not ${counts(r.res).completed}`);
  r = await call('SubmitProof', circuit(8, 1));
  check(!r.err && r.res.job_id.length > 0, 'an empty request_id gets a job id made up');
  if (!r.err) {
    r = await call('AwaitProof', { job_id: r.res.job_id });
    check(!r.err && r.res.status === 'COMPLETED', 'that job completes');
  }

  r = await call('AwaitProof', { job_id: 'no-such-job' });
  check(r.err && r.err.code === grpc.status.NOT_FOUND, `AwaitProof unknown job: NOT_FOUND (${r.err && r.err.code})`);

  // ---- Filecoin kinds: bad C1s, vanilla proofs and fields refused at submission or answered FAILED, named ----
  r = await call('SubmitProof', { request_id: 'porep-1', proof_kind: 'POREP_SEAL_COMMIT', sector_size: 34359738368,
    registered_proof: 8, vanilla_proof: Buffer.from('{"SectorNum":1}'), sector_number: 1, miner_id: 1000 });
  check(!r.err && r.res.job_id === 'porep-1', `SubmitProof PoRep accepted: ${r.err}`);
  r = await call('AwaitProof', { job_id: 'porep-1', timeout_ms: 5000 });
  check(!r.err && r.res.status === 'FAILED' && /^invalid C1 \(vanilla_proof\): /.test(r.res.error_message),
    `PoRep with a bad C1 answered FAILED: ${r.res && r.res.error_message}`);
  for (const [id, c1] of [['porep-empty', Buffer.alloc(0)], ['porep-junk', Buffer.from('{"registered_proof":7')],
    ['porep-env', Buffer.from('{"SectorNum":1,"Phase1Out":"!!","SectorSize":2048}')]]) {
    r = await call('Prove', { submit: { request_id: id, proof_kind: 'POREP_SEAL_COMMIT', vanilla_proof: c1 } });
    check(!r.err && statusOf(r) === 'FAILED' && /^invalid C1/.test(r.res.result.error_message),
      `${id}: FAILED with a clear message (${r.err || r.res.result.error_message})`);
  }
  // SnapDeals: a request without its commitments is refused at submission, naming the field.
  r = await call('Prove', { submit: { request_id: 'fc-SNAP_DEALS_UPDATE', proof_kind: 'SNAP_DEALS_UPDATE',
    registered_proof: 0, vanilla_proofs: [Buffer.alloc(64)], comm_r_old: Buffer.alloc(32) } });
  check(r.err && r.err.code === grpc.status.INVALID_ARGUMENT && /comm_r_new is 0 bytes/.test(r.err.details),
    `SNAP_DEALS_UPDATE without comm_r_new: INVALID_ARGUMENT (${r.err && r.err.details})`);
  r = await call('Prove', { submit: { request_id: 'fc-snap-bad', proof_kind: 'SNAP_DEALS_UPDATE',
    registered_proof: 0, vanilla_proofs: [Buffer.alloc(64)], comm_r_old: Buffer.alloc(32),
    comm_r_new: Buffer.alloc(32), comm_d_new: Buffer.alloc(32) } });
  check((r.err && r.err.code === grpc.status.INVALID_ARGUMENT) ||
    (!r.err && statusOf(r) === 'FAILED' && /^invalid SnapDeals request: /.test(r.res.result.error_message)),
    `SNAP_DEALS_UPDATE with a malformed vanilla proof refused (${r.err ? r.err.details : r.res.result.error_message})`);
  // PoSt: a registered proof of the other kind is refused at submission; junk vanilla proofs fail the job, named.
  r = await call('Prove', { submit: { request_id: 'wpost-bad-type', proof_kind: 'WINDOW_POST_PARTITION',
    registered_proof: 0, vanilla_proofs: [Buffer.alloc(64)], randomness: Buffer.alloc(32) } });
  check(r.err && r.err.code === grpc.status.INVALID_ARGUMENT && /registered WindowPoSt/.test(r.err.details),
    `WindowPoSt with a Winning proof type: INVALID_ARGUMENT (${r.err && r.err.details})`);
  r = await call('Prove', { submit: { request_id: 'winning-junk', proof_kind: 'WINNING_POST', registered_proof: 0,
    vanilla_proofs: [Buffer.alloc(64)], randomness: Buffer.alloc(32) } });
  check(!r.err && statusOf(r) === 'FAILED' && /vanilla_proofs: /.test(r.res.result.error_message),
    `WinningPoSt with junk vanilla proofs answered FAILED (${r.err || r.res.result.error_message})`);
  r = await call('SubmitProof', { request_id: 'k0', proof_kind: 'PROOF_KIND_UNSPECIFIED' });
  check(r.err && r.err.code === grpc.status.INVALID_ARGUMENT, 'PROOF_KIND_UNSPECIFIED: INVALID_ARGUMENT');
  r = await call('SubmitProof', { request_id: 'k7', proof_kind: 7 });
  check(r.err && r.err.code === grpc.status.INVALID_ARGUMENT && /invalid proof_kind: 7/.test(r.err.details),
    `an unknown kind: INVALID_ARGUMENT (${r.err && r.err.details})`);
  r = await call('SubmitProof', { request_id: 'bad-spec', proof_kind: 'CIRCUIT_SPEC', circuit: 'synthetic:k=99' });
  check(r.err && r.err.code === grpc.status.INVALID_ARGUMENT, 'a bad circuit spec: INVALID_ARGUMENT');
  r = await call('Prove', {});
  check(r.err && r.err.code === grpc.status.INVALID_ARGUMENT, 'Prove without submit: INVALID_ARGUMENT');

  // ---- AwaitProof timeout and CancelProof on a running job ----
  r = await call('SubmitProof', circuit(12, 128, { request_id: 'long-1' }));
  check(!r.err, `SubmitProof long-1: ${r.err}`);
  const tAwait = Date.now();
  r = await call('AwaitProof', { job_id: 'long-1', timeout_ms: 150 });
  const waited = Date.now() - tAwait;
  check(!r.err && r.res.status === 'TIMEOUT', `AwaitProof with a timeout: TIMEOUT (${r.res && r.res.status})`);
  check(waited >= 140 && waited < 5000, `the timeout was honoured (${waited} ms)`);
  check(await waitInProgress('circuit'), 'GetStatus shows the job in progress');
  h = httpGet('/status');
  if (h !== null) {
    let js = null;
    try { js = JSON.parse(h.body); } catch (e) { js = null; }
    const pl = js && js.pipelines.find((x) => x.job_id === 'long-1');
    check(pl && pl.proof_kind === 'circuit' && pl.total_partitions === 128 && pl.state === 'running',
      `GET /status lists the running job (${h.body.slice(0, 300)})`);
  }
  const pending = call('AwaitProof', { job_id: 'long-1' });
  r = await call('CancelProof', { job_id: 'long-1' });
  check(!r.err && r.res.was_running === true, 'CancelProof of a running job: was_running');
  r = await pending;
  check(!r.err && r.res.status === 'CANCELLED', `the waiter gets CANCELLED (${r.res && r.res.status})`);
  r = await call('CancelProof', { job_id: 'long-1' });
  check(!r.err && r.res.was_running === false, 'CancelProof of an ended job: not running');
  r = await call('GetStatus', {});
  const q = r.res.queues.find((x) => x.proof_kind === 'circuit');
  check(q.pending === 0 && q.in_progress === 0, 'nothing queued after the cancel');
  check(counts(r.res).cancelled === 1, 'one cancelled job');

  // ---- metrics ----
  r = await call('GetMetrics', {});
  check(!r.err, `GetMetrics: ${r.err}`);
  const text = r.res ? r.res.prometheus_text : '';
  const completedNow = counts((await call('GetStatus', {})).res).completed;
  check(new RegExp(`^cuzk_proofs_completed_total ${completedNow}$`, 'm').test(text), 'metrics: completed total');
  check(/^cuzk_proofs_failed\{proof_kind="porep_c2"\} 4$/m.test(text), 'metrics: the PoRep failures, Rust label');
  check(/^cuzk_engine_jobs_total\{outcome="cancelled"\} 1$/m.test(text), 'metrics: the engine saw the cancel');
  check(/^# TYPE cuzk_engine_job_ms histogram$/m.test(text), 'metrics: engine histograms');

  // ---- request_id reused with other inputs (Curio retrying a sector): never the older job's proof ----
  r = await call('SubmitProof', circuit(12, 128, { request_id: 'sector-1' }));
  check(!r.err && r.res.job_id === 'sector-1', `SubmitProof sector-1 (first inputs): ${r.err}`);
  check(await waitInProgress('circuit'), 'sector-1 runs');
  const olderWait = call('AwaitProof', { job_id: 'sector-1' });
  await sleep(50);
  let before = counts((await call('GetStatus', {})).res);
  r = await call('SubmitProof', circuit(12, 128, { request_id: 'sector-1' }));
  check(!r.err && r.res.job_id === 'sector-1', 'the same request again while it runs: accepted');
  let after = counts((await call('GetStatus', {})).res);
  check(after.cancelled === before.cancelled, 'the same request joins the running job (nothing cancelled)');
  r = await call('SubmitProof', circuit(8, 1, { request_id: 'sector-1' }));
  check(!r.err && r.res.job_id === 'sector-1', `the same id with other inputs: accepted (${r.err})`);
  r = await olderWait;
  check(!r.err && r.res.status === 'CANCELLED' && /superseded/.test(r.res.error_message),
    `the older job's waiter gets its own answer: CANCELLED, superseded (${r.err || (r.res.status + ' ' + r.res.error_message)})`);
  r = await call('AwaitProof', { job_id: 'sector-1' });
  check(!r.err && r.res.status === 'COMPLETED' && proofWellFormed(r.res.proof, 1) && r.res.verified === true,
    `the id names the newest job: one verified proof of the new inputs (${r.err || r.res.status} ${r.res && r.res.proof.length})`);
  // A completed job, then the same id with other inputs: a new job, a new proof.
  r = await call('Prove', { submit: circuit(8, 1, { request_id: 'sector-2' }) });
  check(!r.err && statusOf(r) === 'COMPLETED', `Prove sector-2: ${r.err}`);
  const firstProof = r.res && r.res.result.proof;
  before = counts((await call('GetStatus', {})).res);
  r = await call('Prove', { submit: { ...circuit(8, 1, { request_id: 'sector-2' }), circuit: 'synthetic:k=8,seed=5' } });
  after = counts((await call('GetStatus', {})).res);
  check(!r.err && statusOf(r) === 'COMPLETED' && r.res.result.verified === true, `Prove sector-2, new inputs: ${r.err}`);
  check(after.completed === before.completed + 1, 'it was proved again, not answered from the earlier job');
  check(firstProof && r.res && Buffer.compare(r.res.result.proof, firstProof) !== 0, 'and its proof is another one');
  r = await call('Prove', { submit: { ...circuit(8, 1, { request_id: 'sector-2' }), circuit: 'synthetic:k=8,seed=5' } });
  check(!r.err && counts((await call('GetStatus', {})).res).completed === after.completed,
    'the new request repeated: answered from its job');
  r = await call('Prove', { submit: circuit(8, 1, { request_id: 'sector-3' }) });
  check(!r.err && statusOf(r) === 'COMPLETED', `Prove sector-3: ${r.err}`);
  for (const [what, extra] of [['registered_proof', { registered_proof: 9 }], ['sector_number', { sector_number: 7 }],
    ['randomness', { randomness: Buffer.alloc(32, 1) }], ['partitions', { partitions: 2 }]]) {
    before = counts((await call('GetStatus', {})).res);
    r = await call('Prove', { submit: { ...circuit(8, 1, { request_id: 'sector-3' }), ...extra } });
    after = counts((await call('GetStatus', {})).res);
    check(!r.err && after.completed === before.completed + 1, `another ${what} under the same id: a new proof`);
  }

  // ---- PreloadSRS / EvictSRS ----
  r = await call('PreloadSRS', { circuit_id: 'synthetic:k=9' });
  check(!r.err && r.res.already_loaded === false, `PreloadSRS k=9: ${r.err}`);
  r = await call('PreloadSRS', { circuit_id: 'synthetic:k=9,seed=1' });
  check(!r.err && r.res.already_loaded === true, 'PreloadSRS again (same canonical spec): already loaded');
  r = await call('GetStatus', {});
  const srs = r.res.loaded_srs.find((x) => x.circuit_id === 'synthetic:k=9,seed=1');
  check(srs && srs.tier === 'WARM' && Number(srs.size_bytes) > 0 && srs.ref_count === 0, 'GetStatus lists it, warm');
  r = await call('EvictSRS', { circuit_id: 'synthetic:k=9' });
  check(!r.err && r.res.was_loaded === true && Number(r.res.freed_bytes) === Number(srs && srs.size_bytes),
    'EvictSRS frees it');
  r = await call('EvictSRS', { circuit_id: 'synthetic:k=9' });
  check(!r.err && r.res.was_loaded === false, 'EvictSRS again: was not loaded');
  r = await call('GetStatus', {});
  check(!r.res.loaded_srs.some((x) => x.circuit_id === 'synthetic:k=9,seed=1'), 'no longer listed');
  // A job whose set and circuit are ready is not held up by another set's load (the set up of k=18 takes
  // seconds): it completes before that PreloadSRS answers. Too fast a load (under 1 s) tells nothing: noted.
  r = await call('Prove', { submit: circuit(8, 1, { request_id: 'ready-1' }) });
  check(!r.err && statusOf(r) === 'COMPLETED', `Prove k=8 (its set ready): ${r.err || statusOf(r)}`);
  let preloadAt = 0;
  const slowLoad = call('PreloadSRS', { circuit_id: 'synthetic:k=18' }, 300000).then((x) => {
    preloadAt = Date.now();
    return x;
  });
  await sleep(300);
  r = await call('Prove', { submit: circuit(8, 1, { request_id: 'ready-2' }) });
  const readyAt = Date.now();
  const ready = !r.err && statusOf(r) === 'COMPLETED';
  const lr = await slowLoad;
  check(!lr.err && lr.res.already_loaded === false, `PreloadSRS k=18: ${lr.err}`);
  const loadMs = lr.res ? Number(lr.res.load_time_ms) : 0;
  if (loadMs < 1000) {
    console.log(`ready set during another load: not told (k=18 loaded in ${loadMs} ms)`);
    check(ready, 'Prove k=8 beside the load');
  } else {
    console.log(`ready set during another load: proved ${preloadAt - readyAt} ms before the load's answer ` +
      `(the load ${loadMs} ms)`);
    check(ready && readyAt < preloadAt,
      `a job of a ready set completes while another set loads (${preloadAt - readyAt} ms before the load's ` +
      `answer; the load took ${loadMs} ms)`);
  }
  r = await call('EvictSRS', { circuit_id: 'synthetic:k=18' });
  check(!r.err && r.res.was_loaded === true, 'EvictSRS k=18');

  r = await call('PreloadSRS', { circuit_id: 'porep-32g' });
  check(r.err && r.err.code === grpc.status.FAILED_PRECONDITION && /porep-32g\.params/.test(r.err.details),
    `PreloadSRS porep-32g without its file: FAILED_PRECONDITION naming the file (${r.err && r.err.details})`);
  r = await call('PreloadSRS', { circuit_id: 'winning-32g' });
  check(r.err && r.err.code === grpc.status.FAILED_PRECONDITION && /v28-proof-of-spacetime-fallback/.test(r.err.details),
    `PreloadSRS winning-32g without its file: FAILED_PRECONDITION naming the file (${r.err && r.err.details})`);
  r = await call('EvictSRS', { circuit_id: 'porep-32g' });
  check(!r.err && r.res.was_loaded === false, 'EvictSRS porep-32g: was not loaded');
  r = await call('PreloadSRS', { circuit_id: 'bogus' });
  check(r.err && r.err.code === grpc.status.INVALID_ARGUMENT, 'PreloadSRS of an unknown id: INVALID_ARGUMENT');

  // ---- 100 concurrent requests ----
  const tConc = Date.now();
  const reqs = [];
  for (let i = 0; i < 100; i++) {
    if (i % 2 === 0) reqs.push(call('Prove', { submit: circuit(8, 1, { request_id: `conc-${i}` }) }));
    else if (i % 4 === 1) reqs.push(call('GetStatus', {}));
    else reqs.push(call('SubmitProof', { request_id: `conc-${i}`, proof_kind: 'WINNING_POST', registered_proof: 0,
      vanilla_proofs: [Buffer.alloc(64)], randomness: Buffer.alloc(32) }));
  }
  const all = await Promise.all(reqs);
  const bad = all.filter((x, i) => x.err || (i % 2 === 0 && statusOf(x) !== 'COMPLETED'));
  check(bad.length === 0, `100 concurrent requests all answered (${bad.length} bad: ${bad[0] && bad[0].err})`);
  console.log(`100 concurrent requests: ${Date.now() - tConc} ms`);

  // ---- malformed, truncated, oversized, unknown ----
  r = await rawCall('SubmitProof', Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f]));
  check(r.err && r.err.code === grpc.status.INVALID_ARGUMENT, `garbage bytes: INVALID_ARGUMENT (${r.err && r.err.code})`);
  // A valid encoding cut short: field 10 (vanilla_proof) announces 100 bytes and carries 3.
  r = await rawCall('SubmitProof', Buffer.from([0x0a, 0x01, 0x78, 0x10, 0x01, 0x52, 100, 1, 2, 3]));
  check(r.err && r.err.code === grpc.status.INVALID_ARGUMENT, 'a truncated message: INVALID_ARGUMENT');
  r = await rawCall('AwaitProof', Buffer.from([0x12]));
  check(r.err && r.err.code === grpc.status.INVALID_ARGUMENT, 'a truncated AwaitProofRequest: INVALID_ARGUMENT');
  r = await rawCall('GetStatus', Buffer.from([0x07]));
  check(r.err && r.err.code === grpc.status.INVALID_ARGUMENT, 'a bad GetStatusRequest: INVALID_ARGUMENT');
  r = await rawCall('NoSuchMethod', Buffer.alloc(0));
  check(r.err && r.err.code === grpc.status.UNIMPLEMENTED, 'an unknown method: UNIMPLEMENTED');
  const huge = Buffer.alloc(257 * MIB);
  huge[0] = 0x52; // field 10, then a varint length that covers the rest
  r = await rawCall('SubmitProof', huge, 60000);
  check(r.err && r.err.code === grpc.status.RESOURCE_EXHAUSTED,
    `a 257 MiB request: RESOURCE_EXHAUSTED (${r.err && r.err.code} ${r.err && r.err.details})`);
  // Just under the limit, a PoRep request: accepted (and answered FAILED: not a C1).
  const bigVanilla = Buffer.alloc(200 * MIB, 0x20);
  r = await call('SubmitProof', { request_id: 'porep-big', proof_kind: 'POREP_SEAL_COMMIT', vanilla_proof: bigVanilla });
  check(!r.err && r.res.job_id === 'porep-big', `a 200 MiB PoRep request is accepted (${r.err})`);
  // A client that gives up on its Prove: the daemon keeps serving.
  r = await call('Prove', { submit: circuit(12, 128, { request_id: 'impatient' }) }, 100);
  check(r.err && r.err.code === grpc.status.DEADLINE_EXCEEDED, 'a Prove past its deadline: DEADLINE_EXCEEDED');
  await call('CancelProof', { job_id: 'impatient' });
  r = await call('Prove', { submit: circuit(8, 1, { request_id: 'after-abuse' }) });
  check(!r.err && statusOf(r) === 'COMPLETED', 'still proving after the abuse');

  // ---- kill -9 in the middle of a proof, restart, serve again ----
  r = await call('SubmitProof', circuit(12, 128, { request_id: 'doomed' }));
  check(!r.err, 'SubmitProof doomed');
  check(await waitInProgress('circuit'), 'doomed is running');
  daemon.kill('SIGKILL');
  const killed = await daemon.exitInfo;
  check(killed.signal === 'SIGKILL', 'the daemon died of SIGKILL');
  check(fs.existsSync(sock), 'its socket file is left behind');
  startDaemon();
  check(await waitServing(), 'a new daemon serves on the same (stale) socket');
  r = await call('Prove', { submit: circuit(8, 1, { request_id: 'reborn' }) });
  check(!r.err && statusOf(r) === 'COMPLETED', 'and proves');
  r = await call('AwaitProof', { job_id: 'doomed' });
  check(r.err && r.err.code === grpc.status.NOT_FOUND, 'jobs of the killed daemon are unknown to the new one');
  // A second daemon on a live socket refuses to start.
  const second = spawn(daemonBin, ['--config', cfgPath], { stdio: ['ignore', 'ignore', 'pipe'] });
  let secondErr = '';
  second.stderr.on('data', (d) => { secondErr += d; });
  const secondExit = await new Promise((resolve) => second.on('exit', (code) => resolve(code)));
  check(secondExit !== 0 && /another process is serving/.test(secondErr), 'a second daemon refuses a live socket');
  // A socket directory that cannot be made: a clear error at start.
  fs.writeFileSync(path.join(work, 'plain-file'), 'x');
  const badCfg = path.join(work, 'bad-dir.toml');
  fs.writeFileSync(badCfg, `[daemon]\nlisten = "unix:${path.join(work, 'plain-file', 'sub', 'cuzk.sock')}"\n`);
  const third = spawnSync(daemonBin, ['--config', badCfg], { encoding: 'utf8', timeout: 20000 });
  check(third.status !== 0 && /plain-file.*is not a directory/.test(third.stderr),
    `a socket directory that cannot be made: a clear error (${third.status} ${third.stderr.trim().split('\n').pop()})`);

  // ---- graceful shutdown on SIGTERM with work in flight ----
  r = await call('SubmitProof', circuit(12, 128, { request_id: 'at-shutdown' }));
  check(!r.err, 'SubmitProof at-shutdown');
  const lastWait = call('AwaitProof', { job_id: 'at-shutdown' });
  await sleep(100);
  daemon.kill('SIGTERM');
  r = await lastWait;
  check(!r.err && r.res.status === 'CANCELLED', `the waiter is answered at shutdown (${r.err || r.res.status})`);
  const exited = await Promise.race([daemon.exitInfo, sleep(20000).then(() => null)]);
  check(exited && exited.code === 0, `the daemon exits 0 after SIGTERM (${JSON.stringify(exited)})`);
  check(!fs.existsSync(sock), 'and removes its socket');
  check(/cuzk-daemon stopped/.test(daemonLog), 'and says so');
  // Built with CUZK_SANITIZE, the daemon reports leaks at exit (and exits non-zero): none may appear.
  check(!/LeakSanitizer|AddressSanitizer|runtime error:/.test(daemonLog), 'no sanitizer report in the daemon log');

  client.close();
  console.log(`daemon test: ${checks} checks, ${failures} failed, ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

// ---- PoRep C2 of a real 2 KiB C1 (sealed by `cuzk porep seal`) ----
function verifyPorep(c1Path, proof, what) {
  const proofPath = path.join(work, 'proof.bin');
  fs.writeFileSync(proofPath, proof);
  const v = spawnSync(porep.cuzk, ['verify', '--porep', c1Path, '--vk', path.join(porep.params, 'porep-2k.vk'),
    '--proof', proofPath], { encoding: 'utf8' });
  return { ok: v.status === 0 && /^valid$/m.test(v.stdout), out: `${what}: exit ${v.status} ${v.stdout} ${v.stderr}` };
}

async function porepMain() {
  const t0 = Date.now();
  const rawPath = path.join(porep.c1, 'c1.json'), envPath = path.join(porep.c1, 'c1-envelope.json');
  const raw = fs.readFileSync(rawPath), env = fs.readFileSync(envPath);
  const long = 900000;
  startDaemon();
  check(await waitServing(), 'the daemon serves GetStatus after start');

  let r = await call('PreloadSRS', { circuit_id: 'porep-2k' }, long);
  check(!r.err && r.res.already_loaded === false, `PreloadSRS porep-2k: ${r.err}`);
  const mapFile = path.join(porep.params, 'porep-2k.params.cuzk-map');
  check(fs.existsSync(mapFile), 'srs.mapped: the load made porep-2k.params.cuzk-map');
  const mapTime = fs.existsSync(mapFile) ? fs.statSync(mapFile).mtimeMs : 0;
  r = await call('EvictSRS', { circuit_id: 'porep-2k' });
  check(!r.err && r.res.was_loaded === true, `EvictSRS porep-2k after the preload: ${r.err}`);
  r = await call('PreloadSRS', { circuit_id: 'porep-2k' }, long);
  check(!r.err && r.res.already_loaded === false, `PreloadSRS porep-2k again: ${r.err}`);
  check(fs.existsSync(mapFile) && fs.statSync(mapFile).mtimeMs === mapTime, 'the second load mapped the same cache');
  r = await call('GetStatus', {});
  const set = r.res && r.res.loaded_srs.find((x) => x.circuit_id === 'porep-2k');
  check(set && set.tier === 'WARM' && Number(set.size_bytes) > 0, 'GetStatus lists porep-2k, warm');

  // Prove with the raw SealCommitPhase1Output JSON.
  r = await call('Prove', { submit: { request_id: 'c2-raw', proof_kind: 'POREP_SEAL_COMMIT', sector_size: 2048,
    vanilla_proof: raw, sector_number: 1, miner_id: 1000 } }, long);
  const pr = r.res && r.res.result;
  check(!r.err && statusOf(r) === 'COMPLETED', `Prove 2 KiB C1: ${r.err || (pr && pr.error_message)}`);
  check(pr && proofWellFormed(pr.proof, 1) && pr.verified === true, 'one well-formed proof, verified by the daemon');
  if (pr && pr.proof.length === 192) {
    let v = verifyPorep(rawPath, pr.proof, 'raw');
    check(v.ok, `cuzk verify --porep accepts the proof (${v.out})`);
    const bad = Buffer.from(pr.proof);
    bad[150] ^= 1; // inside C: a different point (or none), never a valid proof
    v = verifyPorep(rawPath, bad, 'tampered');
    check(!v.ok, 'cuzk verify --porep rejects a tampered copy');
    console.log(`2 KiB PoRep C2 through the daemon: total ${pr.total_ms} ms (synth ${pr.synthesis_ms}, gpu ${pr.gpu_compute_ms})`);
  }

  // Submit + Await with the Lotus/Curio envelope, as Curio sends it.
  r = await call('SubmitProof', { request_id: 'c2-env', proof_kind: 'POREP_SEAL_COMMIT', vanilla_proof: env });
  check(!r.err && r.res.job_id === 'c2-env', `SubmitProof envelope: ${r.err}`);
  r = await call('AwaitProof', { job_id: 'c2-env' }, long);
  check(!r.err && r.res.status === 'COMPLETED' && r.res.verified === true, `AwaitProof envelope: ${r.err || r.res.error_message}`);
  if (!r.err && r.res.proof.length === 192) {
    const v = verifyPorep(envPath, r.res.proof, 'envelope');
    check(v.ok, `cuzk verify --porep accepts the envelope's proof (${v.out})`);
  }

  // The same request_id with another C1 (Curio retrying the sector with a new seed): a proof of the new C1.
  // Every other field as before, so that only the C1's bytes tell the two requests apart.
  const retried = { request_id: 'c2-raw', proof_kind: 'POREP_SEAL_COMMIT', sector_size: 2048, vanilla_proof: env,
    sector_number: 1, miner_id: 1000 };
  r = await call('Prove', { submit: retried }, long);
  check(!r.err && statusOf(r) === 'COMPLETED', `Prove c2-raw again with another C1: ${r.err || r.res.result.error_message}`);
  if (!r.err && r.res.result.proof.length === 192) {
    let v = verifyPorep(envPath, r.res.result.proof, 'retried');
    check(v.ok, `the retried id's proof verifies against the new C1 (${v.out})`);
    v = verifyPorep(rawPath, r.res.result.proof, 'retried, old C1');
    check(!v.ok, 'and not against the old one');
    const again = await call('Prove', { submit: retried }, long);
    check(!again.err && Buffer.compare(again.res.result.proof, r.res.result.proof) === 0,
      'the retried request repeated: the same job, the same proof');
  }

  // Cancel: three jobs, the last cancelled while the first ones hold the pipeline.
  const ids = ['c2-q1', 'c2-q2', 'c2-q3'];
  for (const id of ids) {
    r = await call('SubmitProof', { request_id: id, proof_kind: 'POREP_SEAL_COMMIT', vanilla_proof: raw });
    check(!r.err, `SubmitProof ${id}: ${r.err}`);
  }
  r = await call('CancelProof', { job_id: 'c2-q3' });
  check(!r.err && r.res.was_running === true, 'CancelProof of a queued PoRep job: was_running');
  const ends = await Promise.all(ids.map((id) => call('AwaitProof', { job_id: id }, long)));
  check(ends[0].res && ends[0].res.status === 'COMPLETED' && ends[1].res && ends[1].res.status === 'COMPLETED',
    'the two other jobs complete');
  check(ends[2].res && ends[2].res.status === 'CANCELLED', `the cancelled one: CANCELLED (${ends[2].res && ends[2].res.status})`);
  check(ends[0].res && ends[1].res && Buffer.compare(ends[0].res.proof, ends[1].res.proof) !== 0,
    'two proofs of one C1 differ (fresh r, s)');

  // A C1 of another size than the request says: FAILED, clearly.
  r = await call('Prove', { submit: { request_id: 'c2-size', proof_kind: 'POREP_SEAL_COMMIT', sector_size: 34359738368,
    vanilla_proof: raw } });
  check(!r.err && statusOf(r) === 'FAILED' && /does not match the C1/.test(r.res.result.error_message),
    `a sector_size mismatch: FAILED (${r.err || r.res.result.error_message})`);

  r = await call('GetStatus', {});
  const q = r.res.queues.find((x) => x.proof_kind === 'porep-c2');
  check(q.pending === 0 && q.in_progress === 0, 'nothing PoRep left queued');
  check(counts(r.res).completed === 5 && counts(r.res).cancelled === 1, `5 completed, 1 cancelled (${JSON.stringify(counts(r.res))})`);
  console.log(`gpus: ${JSON.stringify(r.res.gpus)}`);

  daemon.kill('SIGTERM');
  const exited = await Promise.race([daemon.exitInfo, sleep(60000).then(() => null)]);
  check(exited && exited.code === 0, `the daemon exits 0 after SIGTERM (${JSON.stringify(exited)})`);
  check(!/LeakSanitizer|AddressSanitizer|runtime error:/.test(daemonLog), 'no sanitizer report in the daemon log');
  client.close();
  console.log(`daemon porep test: ${checks} checks, ${failures} failed, ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

// ---- WindowPoSt / WinningPoSt of sealed 2 KiB sectors (vanilla proofs from `cuzk post vanilla`) ----
function verifyPost(info, vk, proof, what) {
  const proofPath = path.join(work, 'post-proof.bin');
  fs.writeFileSync(proofPath, proof);
  const v = spawnSync(post.cuzk, ['verify-post', '--info', info, '--vk', vk, '--proof', proofPath],
    { encoding: 'utf8' });
  return { ok: v.status === 0 && /^valid$/m.test(v.stdout), status: v.status,
    out: `${what}: exit ${v.status} ${v.stdout} ${v.stderr}` };
}

async function postOne(kind, set, name) {
  const infoPath = path.join(post.data, `${name}-info.json`);
  const info = JSON.parse(fs.readFileSync(infoPath, 'utf8'));
  const vanilla = JSON.parse(fs.readFileSync(path.join(post.data, `${name}.json`), 'utf8')).map(
    (b) => Buffer.from(b, 'base64'));
  const long = 900000;
  let r = await call('PreloadSRS', { circuit_id: set }, long);
  check(!r.err && r.res.already_loaded === false, `PreloadSRS ${set}: ${r.err && r.err.details}`);
  const req = { request_id: `${set}-1`, proof_kind: kind, registered_proof: info.registered_proof, miner_id: 1000,
    partition_index: 0, randomness: Buffer.from(info.randomness, 'hex'), vanilla_proofs: vanilla };
  r = await call('Prove', { submit: req }, long);
  const pr = r.res && r.res.result;
  check(!r.err && statusOf(r) === 'COMPLETED', `Prove ${kind}: ${r.err || (pr && pr.error_message)}`);
  check(pr && proofWellFormed(pr.proof, 1) && pr.verified === true, `${kind}: one proof, verified by the daemon`);
  if (pr && pr.proof.length === 192) {
    const vk = path.join(post.params, `${set}.vk`);
    let v = verifyPost(infoPath, vk, pr.proof, kind);
    check(v.ok, `cuzk verify-post accepts the ${kind} proof (${v.out})`);
    const bad = Buffer.from(pr.proof);
    bad[150] ^= 1;
    v = verifyPost(infoPath, vk, bad, 'tampered');
    check(!v.ok && v.status === 1, `cuzk verify-post rejects a tampered copy (${v.out})`);
    console.log(`2 KiB ${kind} through the daemon: total ${pr.total_ms} ms (synth ${pr.synthesis_ms})`);
  }
  // A changed byte of a vanilla proof: FAILED naming it, never a proof.
  const changed = vanilla.map((b) => Buffer.from(b));
  changed[0][200] ^= 1;
  r = await call('Prove', { submit: { ...req, request_id: `${set}-bad`, vanilla_proofs: changed } }, long);
  check(!r.err && statusOf(r) === 'FAILED' && /sector/.test(r.res.result.error_message),
    `${kind} with a changed vanilla byte: FAILED (${r.err || (r.res.result && r.res.result.error_message)})`);
  // The same request_id with another vanilla proof: a new job (the vanilla proofs are part of the request's
  // digest), not the completed job's proof.
  r = await call('Prove', { submit: { ...req, vanilla_proofs: changed } }, long);
  check(!r.err && statusOf(r) === 'FAILED' && /sector/.test(r.res.result.error_message),
    `${kind}, the id of the completed job with a changed vanilla byte: a new job, FAILED (${r.err || (r.res.result && r.res.result.error_message)})`);
  r = await call('Prove', { submit: req }, long);
  check(!r.err && statusOf(r) === 'COMPLETED' && pr && Buffer.compare(r.res.result.proof, pr.proof) !== 0 &&
    r.res.result.verified === true, `${kind}, the first request again: proved again (${r.err || statusOf(r)})`);
  r = await call('GetStatus', {});
  const q = r.res.queues.find((x) => x.proof_kind === (kind === 'WINNING_POST' ? 'winning-post' : 'window-post'));
  check(q && q.pending === 0 && q.in_progress === 0, `nothing ${kind} left queued`);
}

async function postMain() {
  const t0 = Date.now();
  startDaemon();
  check(await waitServing(), 'the daemon serves GetStatus after start');
  await postOne('WINDOW_POST_PARTITION', 'wpost-2k', 'w');
  if (fs.existsSync(path.join(post.params, 'winning-2k.params'))) await postOne('WINNING_POST', 'winning-2k', 'g');
  const r = await call('EvictSRS', { circuit_id: 'wpost-2k' });
  check(!r.err && r.res.was_loaded === true, `EvictSRS wpost-2k: ${r.err}`);
  daemon.kill('SIGTERM');
  const exited = await Promise.race([daemon.exitInfo, sleep(60000).then(() => null)]);
  check(exited && exited.code === 0, `the daemon exits 0 after SIGTERM (${JSON.stringify(exited)})`);
  check(!/LeakSanitizer|AddressSanitizer|runtime error:/.test(daemonLog), 'no sanitizer report in the daemon log');
  client.close();
  console.log(`daemon post test: ${checks} checks, ${failures} failed, ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

try {
  await (porep ? porepMain() : post ? postMain() : main());
} catch (e) {
  failures++;
  console.error('FAIL: exception', e);
}
if (daemon && daemon.exitCode === null && daemon.signalCode === null) daemon.kill('SIGKILL');
if (failures) {
  console.error('---- daemon log ----\n' + daemonLog.split('\n').slice(-80).join('\n'));
  console.error(`work directory kept: ${work}`);
  process.exit(1);
}
fs.rmSync(work, { recursive: true, force: true });
process.exit(0);
