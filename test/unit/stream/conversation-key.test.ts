import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { conversationKey, splitConversationKey } from '../../../stream/conversation-key.js';
import { jobFor } from '../../../stream/analyze/publisher.js';

test('a conversation id holding NUL (stored as sent) gets its analysis job under its whole id', () => {
  const id = 'conv\u0000part two\u0000three';
  assert.equal(splitConversationKey(conversationKey('t1', id)), ['t1', id]);
  const { job, msgId } = jobFor(conversationKey('t1', id), 1000, 5_500);
  assert.equal([job.tenant_id, job.conversation_id, job.due_ms], ['t1', id, 6_000]);
  // another conversation that shares the id's first part is another job
  assert.is.not(jobFor(conversationKey('t1', 'conv'), 1000, 5_500).msgId, msgId);
});

test('an ordinary key splits into its tenant and conversation', () => {
  assert.equal(splitConversationKey(conversationKey('tenant-a', 'sess-1')), ['tenant-a', 'sess-1']);
  assert.equal(splitConversationKey(conversationKey('t', '')), ['t', '']);
});

test.run();
