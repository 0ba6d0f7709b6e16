/**
 * The API's schemas (zod and `@exploit-grid/api/contracts`), loaded when first needed instead of with the
 * page: the public pages (sign-in, sign-up, /pricing) need them only to check a form on submit or to read an
 * answer, so a first visit downloads neither. The plain values (texts, limits, tiers) come from
 * `@exploit-grid/api/contracts/constants`, which needs no zod.
 *
 * A page starts the download when the visitor starts on its form (`preloadContracts` on the first input or
 * press: not on focus, which the forms take at once), so it is there by the time they submit. The signed-in stores import the contracts directly: they come with the
 * signed-in layout's chunk.
 */
import type * as ContractsModule from '@exploit-grid/api/contracts';

export type Contracts = typeof ContractsModule;

let loaded: Contracts | null = null;
let loading: Promise<Contracts> | null = null;

/** The contracts module; one download, shared by every caller. */
export function loadContracts(): Promise<Contracts> {
  loading ??= import('@exploit-grid/api/contracts').then(
    (module) => (loaded = module),
    (error: unknown) => {
      // A failed download (offline, a new deployment) is tried again by the next caller.
      loading = null;
      throw error;
    },
  );
  return loading;
}

/** The contracts if they are here already, else null (and nothing is started). */
export function loadedContracts(): Contracts | null {
  return loaded;
}

/** Starts the download without waiting for it (a form is being filled in); a failure waits for the real call. */
export function preloadContracts(): void {
  loadContracts().catch(() => undefined);
}
