import { randomUUID } from 'node:crypto';
import type Router from '@koa/router';
import type { RequestState } from '../../core/http.js';
import type { Infer } from '../../schemas/api/infer.js';
import { FEEDBACK_MAX_BODY_BYTES, submitFeedback } from '../../schemas/api/feedback.js';
import { createFeedbackRepo } from '../repo/feedback.js';
import { defineRoute } from './define.js';
import type { RouteDeps } from './deps.js';

type Body = Infer<(typeof submitFeedback)['body']>;
type Response = Infer<(typeof submitFeedback)['response']>;

export function mountFeedback(router: Router<RequestState>, deps: RouteDeps): void {
  const repo = createFeedbackRepo(deps.store);
  defineRoute<Record<string, never>, Body>(
    router,
    deps.keys,
    submitFeedback,
    async ({ principal, body, ctx }): Promise<Response> => {
      const feedbackId = randomUUID();
      const submittedAt = new Date(deps.now()).toISOString();
      await repo.insert({
        tenant_id: principal.tenant,
        feedback_id: feedbackId,
        submitted_at: submittedAt,
        category: body.category,
        severity: body.severity,
        note: body.note ?? '',
        source: body.source ?? '',
        agent: body.agent ?? '',
        cli_version: body.cli_version ?? '',
        refs: body.refs ? JSON.stringify(body.refs) : '',
        command_context: body.command_context ? JSON.stringify(body.command_context) : '',
        key_id: principal.keyId,
        request_id: ctx.state.requestId,
      });
      return { feedback_id: feedbackId, submitted_at: submittedAt };
    },
    { maxBodyBytes: FEEDBACK_MAX_BODY_BYTES },
  );
}
