import type { Store } from '../../core/clickhouse.js';
import type { KeyStore } from '../../core/keys.js';
import type { CursorCodec } from '../pagination.js';

/** What route modules need; built once in createQueryApp. */
export interface RouteDeps {
  store: Store;
  keys: KeyStore;
  cursors: CursorCodec;
  /** Unix ms; injectable so tests can pin "now". */
  now: () => number;
}
