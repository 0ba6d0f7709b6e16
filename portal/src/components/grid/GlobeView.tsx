import type { Attack, GridPlayer } from '@exploit-grid/api/contracts';
import Box from '@mui/material/Box';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import Globe, { type GlobeMethods } from 'react-globe.gl';
import { MeshPhongMaterial } from 'three';
import { feature } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import countriesTopology from 'world-atlas/countries-110m.json';
import { CAMERA_ALTITUDE, CAMERA_DELAY_MS, CAMERA_MOVE_MS } from '../../strings/grid.ts';

/** A running attack drawn from the attacker to the target. */
export type GlobeArc = { attack: Attack; from: GridPlayer; to: GridPlayer };

export type GlobeViewProps = {
  players: readonly GridPlayer[];
  arcs: readonly GlobeArc[];
  meId: string | null;
  /** Players to draw apart: under attack now. */
  hotIds: ReadonlySet<string>;
  selectedId: string | null;
  onSelect: (playerId: string) => void;
};

type PlacedPlayer = GridPlayer & { latitude: number; longitude: number };

// The country outlines ship in the bundle (world-atlas, public domain Natural Earth): no texture from a CDN.
const topology = countriesTopology as unknown as Topology<{ countries: GeometryCollection }>;
const countries = feature(topology, topology.objects.countries).features.map(withoutDegenerateParts);
const globeMaterial = new MeshPhongMaterial({ color: '#070d1a', emissive: '#02060f', shininess: 8 });

/**
 * The globe of the Grid (react-globe.gl, WebGL; loaded on demand by the page): countries as hexagons,
 * operators online as points where their country is, attacks in flight as animated arcs. Picking an operator
 * selects them; the camera then moves to them (core-app section 2: after 500 ms, altitude 1.5 over 2000 ms).
 */
export default function GlobeView({ players, arcs, meId, hotIds, selectedId, onSelect }: GlobeViewProps) {
  const globe = useRef<GlobeMethods | undefined>(undefined);
  const frame = useRef<HTMLDivElement>(null);
  const [size, setSize] = useState({ width: 0, height: 0 });

  useEffect(() => {
    const element = frame.current;
    if (!element) return;
    const observer = new ResizeObserver(([entry]) => {
      if (entry) setSize({ width: entry.contentRect.width, height: entry.contentRect.height });
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  const placed = useMemo(
    () => players.filter((p): p is PlacedPlayer => p.latitude !== null && p.longitude !== null),
    [players],
  );

  // The selected operator's place, so the camera follows a new selection only.
  const target = placed.find((p) => p.id === selectedId);
  const targetLat = target?.latitude;
  const targetLng = target?.longitude;
  useEffect(() => {
    if (targetLat === undefined || targetLng === undefined) return;
    const timer = setTimeout(
      () =>
        globe.current?.pointOfView(
          { lat: targetLat, lng: targetLng, altitude: CAMERA_ALTITUDE },
          CAMERA_MOVE_MS,
        ),
      CAMERA_DELAY_MS,
    );
    return () => clearTimeout(timer);
  }, [selectedId, targetLat, targetLng]);

  // Accessors keep their identity between renders: a new function makes react-globe.gl redo every point.
  const pointColor = useCallback(
    (p: object) => {
      const id = (p as PlacedPlayer).id;
      return id === meId ? '#ffd600' : hotIds.has(id) ? '#ff1744' : '#00e5ff';
    },
    [meId, hotIds],
  );
  const pointAltitude = useCallback(
    (p: object) => ((p as PlacedPlayer).id === selectedId ? 0.12 : 0.04),
    [selectedId],
  );
  const onPointClick = useCallback((p: object) => onSelect((p as PlacedPlayer).id), [onSelect]);

  return (
    <Box ref={frame} data-testid="globe" sx={{ position: 'absolute', inset: 0, overflow: 'hidden' }}>
      {size.width > 0 && (
        <Globe
          ref={globe}
          width={size.width}
          height={size.height}
          backgroundColor="rgba(0,0,0,0)"
          showAtmosphere
          atmosphereColor="#00e5ff"
          atmosphereAltitude={0.18}
          globeMaterial={globeMaterial}
          hexPolygonsData={countries}
          hexPolygonResolution={3}
          hexPolygonMargin={0.35}
          hexPolygonColor={hexColor}
          pointsData={placed}
          pointLat={pointLat}
          pointLng={pointLng}
          pointColor={pointColor}
          pointAltitude={pointAltitude}
          pointRadius={0.6}
          pointLabel={pointLabel}
          onPointClick={onPointClick}
          arcsData={arcs as GlobeArc[]}
          arcStartLat={arcStartLat}
          arcStartLng={arcStartLng}
          arcEndLat={arcEndLat}
          arcEndLng={arcEndLng}
          arcColor={arcColor}
          arcStroke={0.6}
          arcDashLength={0.4}
          arcDashGap={0.2}
          arcDashAnimateTime={1500}
          arcLabel={arcLabel}
        />
      )}
    </Box>
  );
}

const hexColor = () => 'rgba(0, 229, 255, 0.35)';
const pointLat = (p: object) => (p as PlacedPlayer).latitude;
const pointLng = (p: object) => (p as PlacedPlayer).longitude;
const pointLabel = (p: object) =>
  `${escapeHtml((p as PlacedPlayer).handle)} · MMR ${(p as PlacedPlayer).mmr}`;
const arcStartLat = (a: object) => (a as GlobeArc).from.latitude ?? 0;
const arcStartLng = (a: object) => (a as GlobeArc).from.longitude ?? 0;
const arcEndLat = (a: object) => (a as GlobeArc).to.latitude ?? 0;
const arcEndLng = (a: object) => (a as GlobeArc).to.longitude ?? 0;
const arcColor = () => ['#ff9100', '#ff1744'];
const arcLabel = (a: object) =>
  `${escapeHtml((a as GlobeArc).attack.attacker.handle)} → ${escapeHtml((a as GlobeArc).attack.target.handle)}`;

/**
 * The 1:110m outlines keep a few specks reduced to one repeated point (a part of North Korea), which the hexagon
 * fill (h3-js) refuses with an error: such parts are left out.
 */
function withoutDegenerateParts<F extends { geometry: { type: string; coordinates?: unknown } }>(
  country: F,
): F {
  const { geometry } = country;
  if (geometry.type !== 'MultiPolygon') return country;
  const parts = (geometry.coordinates as number[][][][]).filter(
    (polygon) => new Set(polygon[0]?.map(([lng, lat]) => `${lng},${lat}`)).size >= 3,
  );
  return { ...country, geometry: { ...geometry, coordinates: parts } };
}

/** Labels are HTML in react-globe.gl: handles are text. */
function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );
}
