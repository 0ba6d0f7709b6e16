export * from './catalogue.ts';
export * from './loadout.ts';
export * from './check.ts';
export * from './bundle.ts';
export * from './transports.ts';
