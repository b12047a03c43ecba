/**
 * A virtualised table (TanStack virtual-core): a fixed header and only the visible rows in the DOM, so lists of
 * 10 000 queues scroll and filter without lag. Rows have a fixed height; columns are CSS grid tracks.
 */
import { Virtualizer, elementScroll, observeElementOffset, observeElementRect } from '@tanstack/virtual-core';
import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';

/** One column: header text, grid track and the cell renderer. */
export interface Column<R> {
  key: string;
  header: string;
  width: string;
  cell: (row: R) => ComponentChildren;
  align?: 'right';
}

const ROW_HEIGHT = 36;

/** The table; `rowClass` adds a severity class (`rowTitle` its reasons, as a tooltip), `onRow` makes rows clickable. */
export function VirtualTable<R>(props: { rows: R[]; columns: Column<R>[]; rowKey: (row: R) => string; onRow?: (row: R) => void; rowClass?: (row: R) => string; rowTitle?: (row: R) => string; maxHeight?: number; testid?: string }) {
  const scroller = useRef<HTMLDivElement>(null);
  const [, setVersion] = useState(0);
  const virtualizer = useRef<Virtualizer<HTMLDivElement, Element> | null>(null);
  if (virtualizer.current === null) {
    virtualizer.current = new Virtualizer<HTMLDivElement, Element>({
      count: props.rows.length,
      getScrollElement: () => scroller.current,
      estimateSize: () => ROW_HEIGHT,
      overscan: 12,
      scrollToFn: elementScroll,
      observeElementRect,
      observeElementOffset,
      onChange: () => setVersion((v) => v + 1),
      initialRect: { width: 800, height: Math.min(props.maxHeight ?? 560, props.rows.length * ROW_HEIGHT) },
    });
  }
  const v = virtualizer.current;
  v.setOptions({ ...v.options, count: props.rows.length });
  useEffect(() => v._didMount(), [v]);
  useLayoutEffect(() => v._willUpdate());
  const template = props.columns.map((c) => c.width).join(' ');
  const height = Math.min(props.maxHeight ?? 560, Math.max(ROW_HEIGHT, props.rows.length * ROW_HEIGHT));
  return (
    <div class="vtable" data-testid={props.testid} role="table">
      <div class="vrow vhead" role="row" style={{ gridTemplateColumns: template }}>
        {props.columns.map((c) => <div key={c.key} role="columnheader" class={c.align === 'right' ? 'num' : ''}>{c.header}</div>)}
      </div>
      <div class="vbody" ref={scroller} style={{ height: `${height}px` }}>
        <div style={{ height: `${v.getTotalSize()}px`, position: 'relative' }}>
          {v.getVirtualItems().map((item) => {
            const row = props.rows[item.index];
            if (row === undefined) return null;
            return (
              <div
                key={props.rowKey(row)}
                role="row"
                data-testid="row"
                class={`vrow ${props.onRow !== undefined ? 'click' : ''} ${props.rowClass?.(row) ?? ''}`}
                title={props.rowTitle?.(row) || undefined}
                style={{ gridTemplateColumns: template, transform: `translateY(${item.start}px)`, height: `${ROW_HEIGHT}px` }}
                onClick={props.onRow !== undefined ? () => props.onRow!(row) : undefined}
              >
                {props.columns.map((c) => <div key={c.key} role="cell" data-col={c.key} class={c.align === 'right' ? 'num' : ''}>{c.cell(row)}</div>)}
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}
