/**
 * Code-hosting client for `pr` delivery: GitHub REST through @octokit/rest (configured by
 * FIX_GITHUB_TOKEN, FIX_GITHUB_REPO, FIX_GITHUB_API_URL, FIX_GITHUB_BASE_BRANCH). Opens a draft
 * pull request whose head branch carries the candidate file.
 */
import { Octokit } from '@octokit/rest';
import { codeHostUnavailable } from './errors.js';

export interface CodeHostConfig {
  token: string;
  /** owner/name */
  repo: string;
  apiUrl: string;
  baseBranch: string;
}

export interface DraftPrInput {
  branch: string;
  title: string;
  body: string;
  path: string;
  content: string;
  commitMessage: string;
}

export interface CodeHost {
  openDraftPr(input: DraftPrInput): Promise<{ url: string; number: number }>;
}

const status = (err: unknown) => (err as { status?: number })?.status;

export function createCodeHost(cfg: CodeHostConfig): CodeHost {
  const [owner, repo] = cfg.repo.split('/') as [string, string];
  const quiet = () => undefined;
  const gh = new Octokit({ auth: cfg.token, baseUrl: cfg.apiUrl, request: { retries: 0 }, log: { debug: quiet, info: quiet, warn: quiet, error: quiet } });
  const wrap = async <T>(what: string, f: () => Promise<T>): Promise<T> => {
    try {
      return await f();
    } catch (err) {
      const s = status(err);
      if (s === undefined || s >= 500 || s === 401 || s === 403) throw Object.assign(codeHostUnavailable(`the code host refused or failed to ${what} (${s ?? 'no answer'})`), { cause: err });
      throw err;
    }
  };
  return {
    async openDraftPr(input) {
      const base = await wrap('read the base branch', () => gh.rest.git.getRef({ owner, repo, ref: `heads/${cfg.baseBranch}` }));
      const sha = base.data.object.sha;
      try {
        await wrap('create the fix branch', () => gh.rest.git.createRef({ owner, repo, ref: `refs/heads/${input.branch}`, sha }));
      } catch (err) {
        // 422: the branch exists (a retried submit); reuse it
        if (status(err) !== 422) throw err;
      }
      let fileSha: string | undefined;
      try {
        const cur = await gh.rest.repos.getContent({ owner, repo, path: input.path, ref: input.branch });
        if (!Array.isArray(cur.data) && 'sha' in cur.data) fileSha = cur.data.sha;
      } catch (err) {
        if (status(err) !== 404) throw Object.assign(codeHostUnavailable(`the code host failed to read ${input.path}`), { cause: err });
      }
      await wrap('commit the candidate', () =>
        gh.rest.repos.createOrUpdateFileContents({
          owner,
          repo,
          path: input.path,
          message: input.commitMessage,
          content: Buffer.from(input.content, 'utf8').toString('base64'),
          branch: input.branch,
          ...(fileSha ? { sha: fileSha } : {}),
        }),
      );
      const pr = await wrap('open the pull request', () => gh.rest.pulls.create({ owner, repo, head: input.branch, base: cfg.baseBranch, title: input.title, body: input.body, draft: true }));
      return { url: pr.data.html_url, number: pr.data.number };
    },
  };
}
