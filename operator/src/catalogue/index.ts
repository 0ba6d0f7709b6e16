export * from './catalogue.ts';
export * from './loadout.ts';
