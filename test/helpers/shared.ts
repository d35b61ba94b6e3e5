/**
 * The real public datasets beside the repository (`../shared/data`), for tests that read them.
 * Tests refer to them only through this helper, never by an absolute path.
 */
export { dataPath, sharedDir } from '../../eval/lib/data.js';
