import { z } from 'zod';
import type { RequestHandler } from 'express';
import {
  boxRuntimeSchema,
  boxSchema,
  boxSnapshotSchema,
  boxSnapshotsSchema,
  createBoxRequest,
  createSnapshotRequest,
  deleteBoxResponse,
  powerBoxRequest,
} from '../contracts/index.ts';
import { caller } from '../auth/middleware.ts';
import { ApiRouter } from '../http/route.ts';
import type { BoxService } from './service.ts';
import type { SnapshotService } from './snapshots.ts';

const hostnameParams = z.strictObject({
  hostname: z
    .string()
    .max(64, 'hostname is too long')
    .regex(/^[a-z0-9-]+$/i, 'hostname may only contain letters, digits and dashes'),
});
const idParams = z.strictObject({ id: z.string().max(64, 'id is too long') });

const snapshotParams = hostnameParams.extend({
  snapshotId: z.string().max(64, 'snapshotId is too long'),
});

export function boxRoutes(deps: {
  boxes: BoxService;
  snapshots: SnapshotService;
  requireAuth: RequestHandler;
}): ApiRouter {
  const before = [deps.requireAuth];
  const errors = { 401: 'Not signed in' };
  return new ApiRouter()
    .route({
      method: 'get',
      path: '/boxes/my',
      summary: "The signed-in user's box, or null when they have none",
      tags: ['boxes'],
      before,
      errors,
      response: boxSchema.nullable(),
      handler: ({ res }) => deps.boxes.my(caller(res).userId),
    })
    .route({
      method: 'get',
      path: '/boxes/runtime',
      summary: 'Whether this platform can run boxes, and the base image build progress',
      tags: ['boxes'],
      before,
      errors,
      response: boxRuntimeSchema,
      handler: () => deps.boxes.runtime(),
    })
    .route({
      method: 'post',
      path: '/boxes',
      summary: 'Create the signed-in user’s box (one per user; it starts powered off)',
      tags: ['boxes'],
      before,
      errors: { ...errors, 409: 'The user already has a box' },
      body: createBoxRequest,
      status: 201,
      response: boxSchema,
      handler: ({ body, res }) => deps.boxes.create(caller(res).userId, body),
    })
    .route({
      method: 'post',
      path: '/boxes/:hostname/power',
      summary: 'Power the box on or off',
      tags: ['boxes'],
      before,
      errors: {
        ...errors,
        402: 'Not enough credits for box time',
        403: 'Daily time limit reached',
        404: 'No such box of yours',
        503: 'Boxes cannot run here now',
      },
      params: hostnameParams,
      body: powerBoxRequest,
      response: boxSchema,
      handler: ({ params, body, res }) => deps.boxes.power(caller(res).userId, params.hostname, body.on),
    })
    .route({
      method: 'post',
      path: '/boxes/:hostname/reset',
      summary: 'Reset the box: its disk wiped, a new set of services to defend; it powers off',
      tags: ['boxes'],
      before,
      errors: {
        ...errors,
        404: 'No such box of yours',
        409: 'The box is under attack',
        429: 'Boxes are created, reset or deleted once every 15 seconds',
      },
      params: hostnameParams,
      response: boxSchema,
      handler: ({ params, res }) => deps.boxes.reset(caller(res).userId, params.hostname),
    })
    .route({
      method: 'get',
      path: '/boxes/:hostname/snapshots',
      summary: "The box's snapshots and how many slots the owner's tier has",
      tags: ['boxes'],
      before,
      errors: { ...errors, 404: 'No such box of yours' },
      params: hostnameParams,
      response: boxSnapshotsSchema,
      handler: ({ params, res }) => deps.snapshots.list(caller(res).userId, params.hostname),
    })
    .route({
      method: 'post',
      path: '/boxes/:hostname/snapshots',
      summary: "Save the box's disk now (running or not) in one of the tier's snapshot slots",
      tags: ['boxes'],
      before,
      errors: {
        ...errors,
        403: 'The tier has no snapshot slots (BASIC)',
        404: 'No such box of yours',
        409: 'Every slot is taken, the name is taken, one is being taken, or the box has no disk yet',
        429: 'Boxes are created, reset or deleted once every 15 seconds',
        503: 'The snapshot could not be taken, or the runtime takes none',
      },
      params: hostnameParams,
      body: createSnapshotRequest,
      status: 201,
      response: boxSnapshotSchema,
      handler: ({ params, body, res }) =>
        deps.snapshots.create(caller(res).userId, params.hostname, body.name),
    })
    .route({
      method: 'post',
      path: '/boxes/:hostname/snapshots/:snapshotId/restore',
      summary: "Put the snapshot's disk and services in place of the box's; it powers off",
      tags: ['boxes'],
      before,
      errors: {
        ...errors,
        404: 'No such box or snapshot of yours',
        409: 'The box is under attack, or the snapshot cannot be restored',
        429: 'Boxes are created, reset or deleted once every 15 seconds',
        503: 'The snapshot could not be restored now',
      },
      params: snapshotParams,
      response: boxSchema,
      handler: ({ params, res }) =>
        deps.snapshots.restore(caller(res).userId, params.hostname, params.snapshotId),
    })
    .route({
      method: 'delete',
      path: '/boxes/:hostname/snapshots/:snapshotId',
      summary: 'Delete a snapshot (its slot is free again)',
      tags: ['boxes'],
      before,
      errors: { ...errors, 404: 'No such box or snapshot of yours', 409: 'It is still being taken' },
      params: snapshotParams,
      response: deleteBoxResponse,
      handler: async ({ params, res }) => {
        await deps.snapshots.delete(caller(res).userId, params.hostname, params.snapshotId);
        return { deleted: true as const };
      },
    })
    .route({
      method: 'delete',
      path: '/boxes/:id',
      summary: 'Delete the box for good',
      tags: ['boxes'],
      before,
      errors: { ...errors, 404: 'No such box of yours' },
      params: idParams,
      response: deleteBoxResponse,
      handler: async ({ params, res }) => {
        await deps.boxes.delete(caller(res).userId, params.id);
        return { deleted: true as const };
      },
    });
}
