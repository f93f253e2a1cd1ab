// The attacking clients of bench:participants (attacks.ts), in a process of their own so that their own work
// (600 MB of bodies to write) does not slow the participants measured beside them. Plain JavaScript, run by node.
// argv: url path bytes mode waves perWave seconds [tokens...]; prints the answers' statuses as JSON.
// mode "fast": each body sent whole; "slow": 64 KiB every 500 ms for `seconds`, then the connection is dropped.
import { request } from 'node:http';

const [url, path, bytesText, mode, wavesText, perWaveText, secondsText, ...tokens] = process.argv.slice(2);
const bytes = Number(bytesText);
const body = Buffer.alloc(bytes, 0x20);

function post(token, stop) {
  return new Promise((resolve) => {
    const headers = { 'content-type': 'application/json', 'content-length': String(bytes), ...(token ? { 'glimpse-session-token': token } : {}) };
    const req = request(`${url}${path}`, { method: 'POST', agent: false, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', () => resolve(0));
    if (mode === 'fast') return void req.end(body);
    let sent = 0;
    const timer = setInterval(() => {
      const chunk = Math.min(64 * 1024, bytes - 1 - sent);
      if (chunk > 0) req.write(body.subarray(sent, (sent += chunk)));
    }, 500);
    void stop.then(() => {
      clearInterval(timer);
      req.destroy();
      resolve(-1);
    });
  });
}

const statuses = [];
if (mode === 'fast') {
  for (let wave = 0; wave < Number(wavesText); wave++) statuses.push(...(await Promise.all(Array.from({ length: Number(perWaveText) }, () => post(null)))));
} else {
  const stop = new Promise((resolve) => setTimeout(resolve, Number(secondsText) * 1000));
  statuses.push(...(await Promise.all(tokens.map((token) => post(token, stop)))));
}
process.stdout.write(`${JSON.stringify(statuses)}\n`);
