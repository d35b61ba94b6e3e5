// The analyst dashboard: a shell with the navigation, the sign-in page and the page router.
import './style.css';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, onUnauthorized, storeKey, storedKey, type Principal } from './api';
import { Link, navigate, useLocation } from './router';
import { Loading } from './ui';
import { OverviewPage } from './pages/overview';
import { ConversationsPage } from './pages/conversations';
import { ConversationPage } from './pages/conversation';
import { UseCasesPage } from './pages/use-cases';
import { ToolFailuresPage, ToolPage } from './pages/tool-failures';
import { ApiReferencePage } from './pages/api-reference';
import { ProblemsPage } from './pages/problems';
import { ProblemPage } from './pages/problem';
import { FixesPage, FixPage } from './pages/fixes';

interface PageContext {
  principal: Principal | null;
}

const NAV: Array<{ href: string; label: string; match: (p: string) => boolean }> = [
  { href: '/', label: 'Overview', match: (p) => p === '/' },
  { href: '/conversations', label: 'Conversations', match: (p) => p.startsWith('/conversations') },
  { href: '/use-cases', label: 'Use cases', match: (p) => p.startsWith('/use-cases') },
  { href: '/problems', label: 'Problems', match: (p) => p.startsWith('/problems') },
  { href: '/tool-failures', label: 'Tool failures', match: (p) => p.startsWith('/tool-failures') },
  { href: '/fixes', label: 'Fixes', match: (p) => p.startsWith('/fixes') },
  { href: '/api', label: 'API', match: (p) => p.startsWith('/api') },
];

function SignIn({ message, onSignedIn }: { message: string | null; onSignedIn: (p: Principal) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(message);
  const [busy, setBusy] = useState(false);
  useEffect(() => setError(message), [message]);
  return (
    <main class="sign-in">
      <h1>Sign in to Tracehouse</h1>
      <p class="muted">
        Paste an API key. It stays in this tab (session storage) and is sent as <code>x-api-key</code>. <code>npm start</code> prints the first admin key;{' '}
        <code>tracehouse keys create</code> mints more.
      </p>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          const k = key.trim();
          if (!k) return setError('Enter an API key.');
          setBusy(true);
          try {
            const p = await api<Principal>('/whoami', { key: k });
            storeKey(k);
            setError(null);
            onSignedIn(p);
          } catch (err) {
            setError((err as Error).message);
          } finally {
            setBusy(false);
          }
        }}
      >
        <label class="field wide">
          <span>API key</span>
          <input name="api-key" type="password" autocomplete="off" value={key} onInput={(e) => setKey((e.currentTarget as HTMLInputElement).value)} autoFocus />
        </label>
        <button type="submit" disabled={busy}>
          {busy ? 'Checking…' : 'Sign in'}
        </button>
      </form>
      {error && (
        <p class="error-box" role="alert" data-sign-in-error>
          {error}
        </p>
      )}
      <p>
        <Link href="/api">API reference</Link> (no key needed)
      </p>
    </main>
  );
}

function Page({ ctx }: { ctx: PageContext }) {
  const { path } = useLocation();
  const parts = path.split('/').filter(Boolean).map((s) => decodeURIComponent(s));
  if (parts.length === 0) return <OverviewPage />;
  if (parts[0] === 'conversations') return parts[1] ? <ConversationPage id={parts[1]} /> : <ConversationsPage />;
  if (parts[0] === 'use-cases') return <UseCasesPage />;
  if (parts[0] === 'tool-failures') return parts[1] ? <ToolPage tool={parts[1]} /> : <ToolFailuresPage />;
  if (parts[0] === 'fixes') return parts[1] ? <FixPage id={parts[1]} principal={ctx.principal} /> : <FixesPage principal={ctx.principal} />;
  if (parts[0] === 'problems') return parts[1] ? <ProblemPage id={parts[1]} principal={ctx.principal} /> : <ProblemsPage />;
  return (
    <main>
      <h1>Not found</h1>
      <p>
        No page at <code>{path}</code>. <Link href="/">Go to the overview</Link>.
      </p>
    </main>
  );
}

function App() {
  const { path } = useLocation();
  const [principal, setPrincipal] = useState<Principal | null>(null);
  const [checking, setChecking] = useState(() => storedKey() !== null);
  const [signInMessage, setSignInMessage] = useState<string | null>(null);

  useEffect(
    () =>
      onUnauthorized((message) => {
        storeKey(null);
        setPrincipal(null);
        setSignInMessage(message);
      }),
    [],
  );
  useEffect(() => {
    const key = storedKey();
    if (!key) return;
    api<Principal>('/whoami', { key }).then(
      (p) => {
        setPrincipal(p);
        setChecking(false);
      },
      (err: Error) => {
        storeKey(null);
        setSignInMessage(err.message);
        setChecking(false);
      },
    );
  }, []);

  const isPublic = path === '/api' || path.startsWith('/api/');
  const signedIn = principal !== null;
  const ctx: PageContext = { principal };
  return (
    <div class={`shell ${signedIn ? 'signed-in' : ''}`}>
      <header class="top">
        <Link href="/" class="brand">
          Tracehouse
        </Link>
        {signedIn && (
          <nav class="nav" aria-label="Pages">
            {NAV.map((n) => (
              <Link key={n.href} href={n.href} class={n.match(path) ? 'active' : ''} aria-current={n.match(path) ? 'page' : undefined}>
                {n.label}
              </Link>
            ))}
          </nav>
        )}
        {signedIn && (
          <div class="who">
            <span class={`role role-${principal.role}`} data-role={principal.role} title={`tenant ${principal.tenant}`}>
              {principal.tenant} · {principal.role}
            </span>
            <button
              type="button"
              class="link"
              onClick={() => {
                storeKey(null);
                setPrincipal(null);
                setSignInMessage(null);
                navigate('/sign-in');
              }}
            >
              Sign out
            </button>
          </div>
        )}
      </header>
      {isPublic ? (
        <ApiReferencePage />
      ) : checking && path !== '/sign-in' ? (
        // a stored key: the page loads while /whoami confirms it (a refused key brings sign-in back)
        <Page ctx={ctx} />
      ) : checking ? (
        <main>
          <Loading what="your key" />
        </main>
      ) : !signedIn ? (
        <SignIn
          message={signInMessage}
          onSignedIn={(p) => {
            setPrincipal(p);
            setSignInMessage(null);
            if (path === '/sign-in') navigate('/', { replace: true });
          }}
        />
      ) : path === '/sign-in' ? (
        <main>
          <p>
            Signed in. <Link href="/">Open the overview</Link>.
          </p>
        </main>
      ) : (
        <Page ctx={ctx} />
      )}
    </div>
  );
}

const root = document.getElementById('app')!;
root.textContent = ''; // the boot message
render(<App />, root);
