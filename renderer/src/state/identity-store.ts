import { create } from 'zustand';
import type { Reply } from '../../../shared/workbench/methods';

type Person = Reply<'getIdentity'>['person'];

/** Whom this page's workbench acts for, read once as the page starts: a named person, or null for the owner. */
export const useIdentityStore = create<{ person: Person }>()(() => ({ person: null }));
