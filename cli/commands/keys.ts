import { loadConfig } from '../../core/config.js';
import { KEY_SCOPES, type KeyRole, type KeyScope } from '../../schemas/key-scopes.js';
import { flagString, UsageError } from '../args.js';
import type { Command } from '../command.js';

export const keysCommand: Command = {
  name: 'keys',
  summary: 'Create, list and revoke API keys',
  usage: `Usage:
  tracehouse keys create --tenant T --role member|admin [--scope ingest,read] [--label TEXT]
  tracehouse keys list [--tenant T] [--json]
  tracehouse keys revoke <key-id>

create prints the new key once; only its SHA-256 hash is stored (JetStream KV bucket th_keys).
Minted keys embed the tenant and a signature (TRACEHOUSE_SECRET). Revocation takes effect on the
next request. Scopes: ${KEY_SCOPES.join(', ')} (default both).`,
  booleans: ['json'],
  async run(args) {
    const { openBus } = await import('../../core/runtime.js');
    const sub = args.positionals[0];
    if (!sub || !['create', 'list', 'revoke'].includes(sub)) throw new UsageError('expected create, list or revoke');
    const config = loadConfig();
    const { keys, close } = await openBus(config);
    try {
      if (sub === 'create') {
        const tenant = flagString(args, 'tenant');
        const role = flagString(args, 'role') ?? 'member';
        if (!tenant) throw new UsageError('--tenant is required');
        if (role !== 'member' && role !== 'admin') throw new UsageError('--role must be member or admin');
        const scopeFlag = flagString(args, 'scope');
        const scopes = (scopeFlag ? scopeFlag.split(',').map((s) => s.trim()) : [...KEY_SCOPES]) as KeyScope[];
        for (const s of scopes) if (!KEY_SCOPES.includes(s)) throw new UsageError(`unknown scope "${s}"; allowed: ${KEY_SCOPES.join(', ')}`);
        const { key, record } = await keys.create({ tenant, role: role as KeyRole, scopes, label: flagString(args, 'label') ?? '' });
        if (args.flags.json) process.stdout.write(JSON.stringify({ key, ...record }) + '\n');
        else
          process.stdout.write(
            `Created key ${record.id} for tenant ${record.tenant} (role ${record.role}, scopes ${record.scopes.join(',')}).\n` +
              `Store it now; it is not shown again:\n\n  ${key}\n\n`,
          );
      } else if (sub === 'list') {
        const list = await keys.list({ tenant: flagString(args, 'tenant') });
        if (args.flags.json) process.stdout.write(JSON.stringify(list) + '\n');
        else {
          process.stdout.write(`${'ID'.padEnd(18)}${'TENANT'.padEnd(20)}${'ROLE'.padEnd(8)}${'SCOPES'.padEnd(14)}${'CREATED'.padEnd(26)}STATUS\n`);
          for (const k of list)
            process.stdout.write(
              `${k.id.padEnd(18)}${k.tenant.padEnd(20)}${k.role.padEnd(8)}${k.scopes.join(',').padEnd(14)}${k.created_at.padEnd(26)}${k.revoked_at ? `revoked ${k.revoked_at}` : 'active'}\n`,
            );
        }
      } else {
        const id = args.positionals[1];
        if (!id || id.length < 6) throw new UsageError('give the key id (at least 6 characters) shown by `keys list`');
        if (!(await keys.revoke(id))) {
          process.stderr.write(`no key with id ${id}\n`);
          return 1;
        }
        process.stdout.write(`revoked ${id}\n`);
      }
    } finally {
      await close();
    }
  },
};
