export * from './catalogue.ts';
export * from './loadout.ts';
export * from './check.ts';
