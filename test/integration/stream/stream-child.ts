/**
 * The stream role alone in a child process, for crash tests: runtime + stream from dist, config
 * from the environment. Prints `ready` when consuming. SIGTERM closes gracefully; SIGKILL is the
 * crash under test. STREAM_TEST_INSERT_DELAY_MS slows every insert so a kill lands mid-batch.
 */
import { loadConfig } from '../../../core/config.js';
import { createLogger } from '../../../core/log.js';
import { createRuntime } from '../../../core/runtime.js';
import { startStream } from '../../../stream/main.js';

const config = loadConfig();
const rt = await createRuntime(config, { log: createLogger(config.logLevel, {}, process.stderr) });
const delayMs = Number(process.env.STREAM_TEST_INSERT_DELAY_MS ?? 0);
const stream = await startStream(rt, {
  wrapInsert: (insert) => async (table, block, settings) => {
    if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
    await insert(table, block, settings);
    process.stdout.write(`inserted ${table} ${block.rows}\n`);
  },
});
process.stdout.write('ready\n');
process.on('SIGTERM', () => {
  void stream
    .close()
    .then(() => rt.close())
    .then(() => process.exit(0));
});
