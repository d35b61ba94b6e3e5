/**
 * One section of the evaluation report per detector: tables of figures beside their baseline, and
 * plain notes (where a detector loses to its baseline is said here, not hidden).
 */
export interface EvalTable {
  title: string;
  columns: string[];
  rows: Array<Array<string | number>>;
}

export interface EvalSection {
  /** Detector or analysis name, e.g. `emotions`. */
  name: string;
  title: string;
  tables: EvalTable[];
  notes: string[];
  /** Headline figures for the JSON report, e.g. `{ frustration_f1_real: 0.81 }`. */
  figures: Record<string, number>;
}

export interface EvalModule {
  name: string;
  run(): Promise<EvalSection> | EvalSection;
}

export function markdownTable(t: EvalTable): string {
  const cell = (v: string | number) => (typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toFixed(3)) : v.replace(/\|/g, '\\|'));
  return [
    `**${t.title}**`,
    '',
    `| ${t.columns.join(' | ')} |`,
    `|${t.columns.map(() => '---').join('|')}|`,
    ...t.rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
  ].join('\n');
}

export function sectionMarkdown(s: EvalSection): string {
  return [`## ${s.title}`, '', ...s.tables.map((t) => markdownTable(t) + '\n'), ...s.notes.map((n) => `- ${n}`), ''].join('\n');
}
