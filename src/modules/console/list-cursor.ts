import type { Request, Response } from 'express';
import { ValidationFailedError } from '../../shared/errors/domain-error';

/**
 * A list page, or, when its `starting_after` is not a row of the scope (a link from the other mode, an edited
 * address), a redirect (303) to the same list from its first page instead of the API's JSON error; null then.
 */
export async function firstPageIfCursorUnknown<T>(req: Request, res: Response, read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (e) {
    if (!(e instanceof ValidationFailedError) || !e.fields?.starting_after) throw e;
    const url = new URL(req.originalUrl, 'http://console');
    url.searchParams.delete('starting_after');
    res.redirect(303, url.pathname + url.search);
    return null;
  }
}
