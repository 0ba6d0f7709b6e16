import { readFileSync } from 'node:fs';

/** Name and version of the API package (read at run time: works from src/ and dist/). */
export const packageInfo = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  name: string;
  version: string;
};
