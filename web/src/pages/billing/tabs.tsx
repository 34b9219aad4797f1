/**
 * Tabs after the WAI-ARIA tabs pattern (automatic activation): a tablist whose tabs a keyboard moves through with the
 * arrow keys, Home and End (one tab stop), and the selected tab's panel (only it is drawn, so only its tab controls
 * an element). The caller keeps the selection (in the URL).
 */
import type { ComponentChildren } from 'preact';
import { useRef } from 'preact/hooks';

export interface Tab<K extends string> {
  key: K;
  label: string;
}

export function Tabs<K extends string>({
  label,
  tabs,
  selected,
  onSelect,
  children,
}: {
  label: string;
  tabs: readonly Tab<K>[];
  selected: K;
  onSelect: (key: K) => void;
  children: ComponentChildren;
}) {
  const list = useRef<HTMLDivElement>(null);
  const onKeyDown = (e: KeyboardEvent) => {
    const at = tabs.findIndex((t) => t.key === selected);
    const next =
      e.key === 'ArrowRight'
        ? (at + 1) % tabs.length
        : e.key === 'ArrowLeft'
          ? (at - 1 + tabs.length) % tabs.length
          : e.key === 'Home'
            ? 0
            : e.key === 'End'
              ? tabs.length - 1
              : -1;
    if (next < 0) return;
    e.preventDefault();
    onSelect(tabs[next]!.key);
    list.current?.querySelectorAll<HTMLElement>('[role="tab"]')[next]?.focus();
  };
  return (
    <>
      <div class="billing-tabs" role="tablist" aria-label={label} ref={list} onKeyDown={onKeyDown}>
        {tabs.map((t) => (
          <button
            key={t.key}
            type="button"
            role="tab"
            id={`tab-${t.key}`}
            aria-selected={t.key === selected}
            aria-controls={t.key === selected ? `panel-${t.key}` : undefined}
            tabIndex={t.key === selected ? 0 : -1}
            onClick={() => onSelect(t.key)}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div class="billing-panel" role="tabpanel" id={`panel-${selected}`} aria-labelledby={`tab-${selected}`}>
        {children}
      </div>
    </>
  );
}
