/** The operator's Prometheus metrics (served on /metrics by http.ts). */
import { Counter, Gauge, Histogram, Registry, Summary, collectDefaultMetrics } from 'prom-client';

export class Metrics {
  readonly registry = new Registry();
  readonly reconciles = new Counter({
    name: 'exploit_grid_reconcile_total',
    help: 'Reconciles by controller and result (success, error).',
    labelNames: ['controller', 'result'] as const,
    registers: [this.registry],
  });
  readonly reconcileSeconds = new Histogram({
    name: 'exploit_grid_reconcile_duration_seconds',
    help: 'Time one reconcile took.',
    labelNames: ['controller'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  /** The same times as quantiles over the last 10 minutes (what the benchmark reads). */
  readonly reconcileQuantiles = new Summary({
    name: 'exploit_grid_reconcile_latency_seconds',
    help: 'Reconcile time quantiles over the last 10 minutes.',
    labelNames: ['controller'] as const,
    percentiles: [0.5, 0.95, 0.99],
    maxAgeSeconds: 600,
    ageBuckets: 5,
    registers: [this.registry],
  });
  readonly queueDepth = new Gauge({
    name: 'exploit_grid_workqueue_depth',
    help: 'Keys waiting in a controller queue.',
    labelNames: ['controller'] as const,
    registers: [this.registry],
  });
  readonly leader = new Gauge({
    name: 'exploit_grid_leader',
    help: '1 while this replica leads (runs the controllers), else 0.',
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }
}
