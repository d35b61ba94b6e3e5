/**
 * The harness tools (spec/fix-pipeline.md "Tool interface"): upload of the agent harness graph
 * that routes fixes (size checked before upload), its deletion, and analysis run status.
 */
import { z } from 'zod';
import { BadRequestError, NotFoundError } from '../core/errors.js';
import { MAX_GRAPH_BYTES } from '../fixes/harness.js';
import { ok, tenantId, type ToolContext, type ToolKit } from './tool-kit.js';

export function registerHarnessTools({ tool }: ToolKit, ctx: ToolContext): void {
  const { services } = ctx;

  tool(
    'harness_sync',
    { title: 'Upload the harness graph', description: `Uploads the agent harness graph (agents, artifacts, relationships) used to route fixes, and/or an approved analysis report. Graph limit ${MAX_GRAPH_BYTES} bytes, checked before upload.`, write: true },
    {
      graph: z.record(z.string(), z.unknown()).optional(),
      graph_hash: z.string().optional(),
      source_commit: z.string().optional(),
      dry_run: z.boolean().default(false),
      report: z.record(z.string(), z.unknown()).optional(),
      report_hash: z.string().optional(),
      report_validation_status: z.string().optional(),
      report_approval: z.record(z.string(), z.unknown()).optional(),
      tenant_id: tenantId,
    },
    async (a, p) => {
      if (a.graph === undefined && a.report === undefined) throw new BadRequestError('graph is required unless report is given');
      if (a.graph !== undefined && Buffer.byteLength(JSON.stringify(a.graph)) > MAX_GRAPH_BYTES) throw new BadRequestError(`graph exceeds ${MAX_GRAPH_BYTES} bytes`);
      return ok(
        await services.harness.sync(p.tenant, {
          graph: a.graph,
          graphHash: a.graph_hash,
          sourceCommit: a.source_commit,
          dryRun: a.dry_run,
          report: a.report,
          reportHash: a.report_hash,
          reportValidationStatus: a.report_validation_status,
          reportApproval: a.report_approval,
        }),
      );
    },
  );
  tool(
    'harness_delete',
    { title: 'Delete a harness', description: 'Permanently deletes all versions, agents, artifacts and relationships of a harness; returns deleted counts. confirm must be true.', write: true, destructive: true, idempotent: true },
    { id_or_key: z.string().min(1), confirm: z.boolean(), tenant_id: tenantId },
    async (a, p) => {
      if (a.confirm !== true) throw new BadRequestError('confirm must be true to delete a harness');
      const r = await services.harness.delete(p.tenant, a.id_or_key);
      if (!r.deleted) throw new NotFoundError(`no harness ${a.id_or_key}`);
      return ok(r);
    },
  );
  tool(
    'harness_analyze_status',
    { title: 'Harness analysis status', description: 'Reads a harness analysis run; progress strings are stripped of control characters.', write: false },
    { run_id: z.string().min(1), tenant_id: tenantId },
    async (a, p) => {
      const r = await services.harness.analysisRun(p.tenant, a.run_id);
      if (!r) throw new NotFoundError(`no harness analysis run ${a.run_id}`);
      // eslint-disable-next-line no-control-regex
      return ok({ ...r, progress: r.progress.map((s) => s.replace(/[\u0000-\u001f\u007f-\u009f]/g, '')) });
    },
  );
}
