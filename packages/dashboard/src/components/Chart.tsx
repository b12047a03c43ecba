/**
 * A uPlot time-series chart: nulls are gaps, series greyscale (colour is for severity only), a tooltip legend
 * with every series, width follows the container. `bars` draws stepped bars for per-bucket counts.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { fmtAxis } from '../format.js';
import type { Frame } from '../series.js';

const GREYS = ['#e6e6e6', '#9a9a9a', '#5f5f5f', '#c4c4c4', '#7a7a7a', '#b0b0b0', '#4a4a4a', '#d8d8d8'];

/** Label format: HH:MM, or "Mon D, HH:MM" when the frame spans days. */
function timeFormat(frame: Frame): (self: uPlot, splits: number[]) => string[] {
  const first = frame.x[0] ?? 0;
  const last = frame.x[frame.x.length - 1] ?? 0;
  const days = last - first > 86_400;
  return (_self, splits) => splits.map((s) => {
    const d = new Date(s * 1000);
    const hm = `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
    return days ? `${d.toLocaleString('en-US', { month: 'short' })} ${d.getDate()}, ${hm}` : hm;
  });
}

/** The chart. */
export function Chart(props: { frame: Frame; span?: { from: string; to: string }; height?: number; bars?: boolean; unit?: string; title?: string; empty?: ComponentChildren; testid?: string }) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const shape = `${props.frame.series.map((s) => s.label).join('|')}|${props.bars === true}|${props.span?.from.slice(0, 15) ?? ''}`;
  useEffect(() => {
    const el = box.current;
    if (el === null) return;
    const opts: uPlot.Options = {
      width: Math.max(200, el.clientWidth),
      height: props.height ?? 180,
      legend: { show: true, live: true },
      cursor: { drag: { x: false, y: false } },
      scales: { x: props.span === undefined ? { time: true } : { time: true, range: (): uPlot.Range.MinMax => [new Date(props.span!.from).getTime() / 1000, new Date(props.span!.to).getTime() / 1000] } },
      axes: [
        { stroke: '#8a8a8a', grid: { stroke: '#2a2a2a' }, ticks: { stroke: '#2a2a2a' }, values: timeFormat(props.frame) },
        { stroke: '#8a8a8a', grid: { stroke: '#2a2a2a' }, ticks: { stroke: '#2a2a2a' }, size: 64, values: (_self, splits) => splits.map((v) => fmtAxis(v, props.unit)) },
      ],
      series: [
        {},
        ...props.frame.series.map((s, i) => ({
          label: s.label,
          stroke: GREYS[i % GREYS.length]!,
          width: 1.5,
          spanGaps: false,
          ...(props.bars === true ? { paths: uPlot.paths.bars!({ size: [0.7, 40] }), fill: `${GREYS[i % GREYS.length]!}55` } : {}),
          value: (_u: uPlot, v: number | null) => (v === null ? '–' : `${Number.isInteger(v) ? v : v.toFixed(2)}${props.unit ?? ''}`),
        })),
      ],
    };
    const data = [props.frame.x, ...props.frame.series.map((s) => s.values)] as uPlot.AlignedData;
    plot.current = new uPlot(opts, data, el);
    const resize = new ResizeObserver(() => plot.current?.setSize({ width: Math.max(200, el.clientWidth), height: props.height ?? 180 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [shape]);
  useEffect(() => {
    plot.current?.setData([props.frame.x, ...props.frame.series.map((s) => s.values)] as uPlot.AlignedData);
  }, [props.frame]);
  const hasData = props.frame.x.length > 0;
  return (
    <div class="chart" data-testid={props.testid} data-points={props.frame.x.length}>
      {props.title !== undefined && <div class="chart-title">{props.title} <span class="muted">· {hasData ? `${props.frame.x.length} data points` : 'a point appears when its bucket is complete'}</span></div>}
      <div ref={box} class="chart-box" />
      {!hasData && <div class="chart-empty">{props.empty ?? 'No complete bucket in this period yet'}</div>}
    </div>
  );
}
