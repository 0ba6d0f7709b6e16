import { z } from 'zod';

/** The `page` and `limit` of a paged listing (1-based; at most 100 a page). */
export const pagingFields = (defaultLimit: number) => ({
  page: z.coerce
    .number({ error: 'page must be a number' })
    .int('page must be a whole number')
    .min(1, 'page must be at least 1')
    .max(1_000_000, 'page is too large')
    .default(1),
  limit: z.coerce
    .number({ error: 'limit must be a number' })
    .int('limit must be a whole number')
    .min(1, 'limit must be between 1 and 100')
    .max(100, 'limit must be between 1 and 100')
    .default(defaultLimit),
});
