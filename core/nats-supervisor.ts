/**
 * Runs nats-server as a child and ties its life to our parent: when the parent's pipe to our stdin
 * closes (clean exit, crash or SIGKILL of the parent), the server gets SIGTERM. Spawned detached,
 * so a terminal Ctrl-C reaches only the parent, which then drains before stopping the server.
 * Usage: node nats-supervisor.js <nats-server binary> [args...]
 */
import { spawn } from 'node:child_process';

const [bin, ...args] = process.argv.slice(2);
if (!bin) process.exit(2);
const child = spawn(bin, args, { stdio: ['ignore', 'inherit', 'inherit'] });
let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  child.kill('SIGTERM');
  // a server that does not stop in 5 s is killed
  setTimeout(() => child.kill('SIGKILL'), 5000).unref();
};
process.stdin.on('end', stop);
process.stdin.on('error', stop);
process.stdin.resume();
process.on('SIGTERM', stop);
process.on('SIGINT', () => {});
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
child.on('error', () => process.exit(127));
