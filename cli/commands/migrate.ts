import { loadConfig } from '../../core/config.js';
import type { Command } from '../command.js';

export const migrateCommand: Command = {
  name: 'migrate',
  summary: 'Apply pending ClickHouse migrations from sql/migrations',
  usage: `Usage: tracehouse migrate

Applies every migration in sql/migrations that is not yet recorded in schema_migrations, in order.
Idempotent: a second run applies nothing. Roles also migrate at start.
With CLICKHOUSE_URL unset this opens the embedded data directory, which must not be in use by a
running \`tracehouse start\`.`,
  async run() {
    const { createStore } = await import('../../core/clickhouse.js');
    const { migrate } = await import('../../core/migrations.js');
    const config = loadConfig();
    const store = createStore(config);
    try {
      const { applied } = await migrate(store, { cluster: config.clickhouse.cluster });
      process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'up to date: no pending migrations\n');
    } finally {
      await store.close();
    }
  },
};
