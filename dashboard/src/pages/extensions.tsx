// Pages over endpoints that are optional in a deployment (problems, fixes): listed in the
// navigation only here, so the shell stays the same when they are added.
import type { ComponentChildren } from 'preact';
import type { Principal } from '../api';

export interface PageContext {
  principal: Principal | null;
}

export interface PageExtension {
  href: string;
  label: string;
  render: (parts: string[], ctx: PageContext) => ComponentChildren;
}

export const pageExtensions: PageExtension[] = [];
