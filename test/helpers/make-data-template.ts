/** Run by the test runner: migrates a template data directory (see data-template.ts) and prints its path. */
import { makeDataTemplate } from './data-template.js';

process.stdout.write(`${await makeDataTemplate()}\n`);
