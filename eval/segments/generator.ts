/**
 * Generated conversations with planted goal switches, for the segments evaluation. Each
 * conversation chains 1–4 goals from different domains; every goal opens with a request, goes
 * on with continuations (answers, confirmations, corrections, follow-ups that reuse the goal's
 * words, some opening with "Now"/"Also"), tool calls and results. Switches are phrased many ways,
 * a third with no marker at all; some goals contain a long pause (a hard negative).
 */
import type { DirectEvent } from '../../stream/import/types.js';
import { rng, type Rng } from './random.js';

interface Domain {
  name: string;
  openers: string[];
  followUps: string[];
  agent: string[];
  tools: string[];
}

const DOMAINS: Domain[] = [
  {
    name: 'flights',
    openers: ['I need to book a one-way flight from Denver to Boston on June 3rd.', 'Could you book me a flight to Boston leaving Denver on the 3rd of June?', 'Please find a flight from Denver to Boston for June 3, economy.'],
    followUps: ['The morning flight works, economy please.', 'Use the card ending in 4421 for the booking.', 'Now use my travel certificate for the flight instead.', 'No, I meant the 9am departure, not the 7am one.', 'Is there a window seat on that Boston flight?', 'Yes, book it.'],
    agent: ['I found two direct flights from Denver to Boston on June 3.', 'The 9am flight is available in economy for $214. Shall I book it?', 'Your flight is booked; the confirmation number is K7QW2P. Anything else?'],
    tools: ['search_flights', 'book_reservation', 'get_user_details'],
  },
  {
    name: 'returns',
    openers: ['My order 88231 arrived with cracked headphones and I want to return them.', 'The headphones in order 88231 are broken, how do I send them back?', 'I would like a refund for the damaged headphones from order 88231.'],
    followUps: ['Refund to the original card, please.', 'They arrived yesterday, the left speaker is cracked.', 'Also, make sure the refund covers the shipping fee.', 'Yes, start the return.', 'Can the courier pick the headphones up from my office?'],
    agent: ['I see order 88231 with one pair of headphones, delivered yesterday.', 'A return label has been created and the refund of $79 will go to your card.', 'The return for order 88231 is registered. Anything else?'],
    tools: ['get_order_details', 'return_items', 'create_label'],
  },
  {
    name: 'bugfix',
    openers: ['The login form crashes when the password field is empty, can you fix it?', 'Submitting the login form with an empty password throws a TypeError; please fix the crash.', 'Fix the crash in the login form when no password is entered.'],
    followUps: ['Run the login tests again.', 'Now add a test for the empty password case.', "That didn't fix it, the form still crashes on submit.", 'Why did the validator not catch the empty password?', 'Looks good, commit the fix.', 'Wait, keep the old error message for the password field.'],
    agent: ['The crash comes from validatePassword() reading length of undefined.', 'I added a guard in the login form handler; the login tests pass now.', 'Committed the fix for the empty password crash.'],
    tools: ['Read', 'Edit', 'Bash'],
  },
  {
    name: 'docs',
    openers: ['Please write a README section explaining how to configure the logger.', 'Document the logger configuration options in the README.', 'Add docs for setting the log level and log format to the README.'],
    followUps: ['Mention the LOG_LEVEL environment variable too.', 'Shorter please, the logger section is too long.', 'Add an example of the JSON log format.', 'Yes, that reads well.', 'Now link the logger section from the table of contents.'],
    agent: ['I added a "Logging" section to the README covering LOG_LEVEL and LOG_FORMAT.', 'The section now has a JSON log example and is linked from the contents.', 'Updated the README logger docs.'],
    tools: ['Read', 'Write', 'Edit'],
  },
  {
    name: 'analysis',
    openers: ['Compute the average order value per month from sales.csv.', 'From sales.csv, what is the monthly average order value?', 'Can you analyze sales.csv and chart the average order value by month?'],
    followUps: ['Exclude refunded orders from the average.', 'Plot it as a bar chart.', 'The March value looks too high, check for duplicate orders.', 'Round the averages to two decimals.', 'Thanks, also export the monthly averages to a CSV.'],
    agent: ['sales.csv has 12,480 orders from January to June.', 'The average order value ranges from $41.20 in February to $57.90 in March.', 'I removed 37 duplicate orders; March is now $49.10.'],
    tools: ['python', 'read_file'],
  },
  {
    name: 'ci',
    openers: ['Set up a GitHub Actions workflow that runs the tests on every push.', 'We need CI: run the test suite on each push and pull request.', 'Create a CI pipeline that runs npm test for pull requests.'],
    followUps: ['Use Node 20 in the workflow.', 'Cache the npm dependencies too.', 'The workflow failed on the lint step, fix it.', 'Yes, push the workflow file.', 'Now make the CI job also run on the release branch.'],
    agent: ['I created .github/workflows/test.yml running npm test on push.', 'The workflow now caches npm and uses Node 20.', 'The CI run passed on the latest push.'],
    tools: ['Write', 'Bash', 'Read'],
  },
  {
    name: 'meeting',
    openers: ['Schedule a meeting with Dana next Tuesday at 3pm about the budget review.', 'Put a budget review with Dana on my calendar for Tuesday afternoon.', 'Can you set up a call with Dana on Tuesday to review the budget?'],
    followUps: ['Make it 45 minutes.', 'Invite Priya to the budget meeting as well.', 'Actually, move it to 4pm.', 'Add the budget spreadsheet link to the invite.', 'Yes, send the invite.'],
    agent: ['Dana is free on Tuesday from 3pm to 5pm.', 'I scheduled "Budget review" with Dana on Tuesday at 3pm for 45 minutes.', 'The invite has been sent to Dana and Priya.'],
    tools: ['find_free_slots', 'create_event', 'send_invite'],
  },
  {
    name: 'question',
    openers: ["What's the difference between a process and a thread?", 'Can you explain how processes differ from threads in an operating system?', 'How do threads and processes differ in memory sharing?'],
    followUps: ['So threads share the heap but not the stack?', 'Give me an example with a web server.', 'Why would I pick processes over threads then?', 'That makes sense.'],
    agent: ['A process has its own address space; threads of one process share it.', 'Each thread has its own stack, but they share the heap and globals.', 'Processes isolate failures better, at the cost of heavier context switches.'],
    tools: [],
  },
];

/** How a switch to a new goal is phrased; '' means no marker at all. */
const SWITCHES = ['', '', '', '', 'Thanks! ', 'Great, that is done. ', 'Perfect. ', 'Okay, different thing: ', 'Switching topics — ', 'Unrelated, but ', 'While I have you, ', 'Separately, ', 'Oh, and ', 'Before I forget, ', 'One other request: ', 'Changing the subject: ', "Let's park that. ", 'Next up: ', 'Now for something else. ', 'That one is sorted. Now ', 'Moving along, ', 'Another thing: ', 'New question. ', 'Cool. I also need help with this: '];

export interface GeneratedConversation {
  id: string;
  events: DirectEvent[];
  /** Message indexes where a new goal starts (the first goal's start, 0, excluded). */
  boundaries: number[];
}

function lower(first: string): string {
  return first.charAt(0).toLowerCase() + first.slice(1);
}

function buildOne(r: Rng, n: number): GeneratedConversation {
  const id = `gen-seg-${n}`;
  const events: DirectEvent[] = [];
  const boundaries: number[] = [];
  let t = Date.parse('2025-03-01T09:00:00Z') + n * 86_400_000;
  let call = 0;
  const push = (e: Omit<DirectEvent, 'conversation_id' | 'timestamp' | 'message_id'>, gapMs = r.int(4, 90) * 1000) => {
    t += gapMs;
    events.push({ conversation_id: id, timestamp: new Date(t).toISOString(), message_id: `${id}:${events.length}`, ...e } as DirectEvent);
  };
  const goals = r.int(1, 4);
  const used = new Set<string>();
  for (let g = 0; g < goals; g++) {
    let d = r.pick(DOMAINS);
    while (used.has(d.name)) d = r.pick(DOMAINS);
    used.add(d.name);
    const opener = r.pick(d.openers);
    const sw = g === 0 ? (r.chance(0.3) ? 'Hi! ' : '') : r.pick(SWITCHES);
    if (g > 0) boundaries.push(events.length);
    push({ role: 'user', message: sw ? sw + (/[—:]\s$|, $/.test(sw) || /Now $/.test(sw) ? lower(opener) : opener) : opener });
    const steps = r.int(1, 4);
    for (let k = 0; k < steps; k++) {
      if (d.tools.length && r.chance(0.6)) {
        const toolId = `call_${call++}`;
        push({ role: 'assistant', content: [{ type: 'tool_use', tool_name: r.pick(d.tools), tool_use_id: toolId, input: {} }] });
        push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: toolId, content: 'ok', is_error: r.chance(0.1) }] });
      }
      push({ role: 'assistant', message: r.pick(d.agent) });
      if (k < steps - 1) {
        // a long pause inside a goal: the person comes back to the same work
        const pause = r.chance(0.12) ? 2 * 3_600_000 : undefined;
        push({ role: 'user', message: r.pick(d.followUps) }, pause);
      }
    }
  }
  return { id, events, boundaries };
}

/** `count` conversations from `seed`. */
export function generateSegmentSet(seed: number, count: number): GeneratedConversation[] {
  const r = rng(seed);
  return Array.from({ length: count }, (_, n) => buildOne(r, n));
}
