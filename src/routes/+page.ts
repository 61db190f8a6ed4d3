/* The root sends people to the inbox, which asks them to sign in when needed. */
import { redirect } from '@sveltejs/kit';
import type { PageLoad } from './$types';

export const load: PageLoad = () => redirect(307, '/inbox');
