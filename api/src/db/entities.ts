import type { EntitySchema } from '@mikro-orm/core';

/** Every entity the ORM knows; features add theirs here. */
export const entities: EntitySchema[] = [];
