import {
  ATTACK_MESSAGES,
  BOX_MESSAGES,
  CHAT_MESSAGES,
  COMMERCE_MESSAGES,
  GRID_MESSAGES,
} from '@exploit-grid/api/contracts';
import { describe, expect, it } from 'vitest';

/**
 * Words of the people who build and run the platform, which players should never have to read: settings'
 * names, the configuration's assignments, programming values, hosts and tools (issue 19: 'ORCHESTRATOR=none',
 * 'isn't routed').
 */
const DEVELOPER_WORDS: readonly [string, RegExp][] = [
  ['a setting’s name (CAPS_WITH_UNDERSCORES)', /\b[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]\b/],
  ['a setting’s assignment (NAME=value)', /\b[A-Z][A-Z0-9_]{2,}=/],
  ['a programming value', /\b(undefined|null|NaN|true|false|\[object Object\])\b/],
  ['routing jargon', /\brout(ed|ing|er)\b/i],
  ['a host or local address', /\b(localhost|127\.0\.0\.1|0\.0\.0\.0)\b/i],
  [
    'the platform’s internals',
    /\b(orchestrator|kubevirt|kubectl|helm|namespace|cgroup|stack trace|stderr|stdout|API log|env(ironment)? var)/i,
  ],
  ['a developer command', /\b(npm|make|node) (run|test|install|box-deps)\b/],
  ['an exception', /\b(exception|TypeError|ECONN\w+|EADDR\w+)\b/],
];

/** A stand-in for any argument: 1 as a string or number, and 1 in every field. */
const anything: unknown = new Proxy(
  {},
  { get: (_target, key) => (key === Symbol.toPrimitive ? () => 1 : key === 'then' ? undefined : anything) },
);

/** Every text of a module: strings, strings in arrays and objects, and what functions of texts return. */
function textsOf(value: unknown, where: string, out: [string, string][] = []): [string, string][] {
  if (typeof value === 'string') out.push([where, value]);
  else if (typeof value === 'function') {
    // A text with holes ('Match found: {handle}.', '{n} credits', '{cost.hourly}'): each argument reads as 1,
    // as a string, a number, or any field of an object.
    const args = Array.from({ length: value.length }, () => anything);
    try {
      textsOf((value as (...a: unknown[]) => unknown)(...args), `${where}()`, out);
    } catch {
      // Not a text function (a formatter of numbers, a parser): nothing a player reads as such.
    }
  } else if (Array.isArray(value)) value.forEach((item, i) => textsOf(item, `${where}[${i}]`, out));
  else if (value && typeof value === 'object')
    for (const [key, item] of Object.entries(value)) textsOf(item, `${where}.${key}`, out);
  return out;
}

const stringModules = import.meta.glob<Record<string, unknown>>(
  ['./*.ts', './legal/*.ts', '!./**/*.test.ts'],
  {
    eager: true,
  },
);

describe('texts players read', () => {
  const texts = [
    ...Object.entries(stringModules).flatMap(([file, module]) =>
      textsOf(module, file.replace('./', 'strings/')),
    ),
    ...textsOf(
      { ATTACK_MESSAGES, BOX_MESSAGES, CHAT_MESSAGES, COMMERCE_MESSAGES, GRID_MESSAGES },
      'api/contracts',
    ),
  ];

  it('are many (the scan reads every strings module and the API’s messages)', () => {
    expect(Object.keys(stringModules).length).toBeGreaterThan(10);
    expect(texts.length).toBeGreaterThan(300);
  });

  it.each(DEVELOPER_WORDS)('carry no %s', (name, pattern) => {
    // What a text function makes of stand-in arguments may say 'undefined' (a lookup by a made-up key): only
    // written texts are held to that one.
    const scanned = name === 'a programming value' ? texts.filter(([where]) => !where.includes('()')) : texts;
    const found = scanned
      .filter(([, text]) => pattern.test(text))
      .map(([where, text]) => `${where}: ${text}`);
    expect(found).toEqual([]);
  });
});
