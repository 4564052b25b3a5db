import { useEffect, useState } from 'preact/hooks';
import type { IndexRow } from '../../../capture/types';
import { html } from '../html';
import { api, watchIndex, type DashboardInfo } from '../api';
import { setEditor } from '../editor';
import { useRoute } from '../router';
import { CaptureList, type ListFilters } from './CaptureList';
import { CapturePage } from './CapturePage';

/** The shell: top bar, and the list or one capture by the URL hash. The live index is kept across pages. */
export function App() {
  const route = useRoute();
  const [rows, setRows] = useState<IndexRow[]>([]);
  const [loaded, setLoaded] = useState(false);
  const [live, setLive] = useState(false);
  const [info, setInfo] = useState<DashboardInfo | null>(null);
  const [filters, setFilters] = useState<ListFilters>({ type: 'all', errorsOnly: false, text: '', byRoute: false, findingsOnly: false });
  const [, setTick] = useState(0);

  useEffect(() => {
    api.info().then(
      (got) => {
        setEditor(got?.root, got?.editor);
        setInfo(got);
      },
      () => undefined,
    );
    const stop = watchIndex((next) => {
      setRows(next);
      setLoaded(true);
    }, setLive);
    // Relative times ("12s ago") move on without new data.
    const timer = setInterval(() => setTick((n) => n + 1), 10_000);
    return () => {
      stop();
      clearInterval(timer);
    };
  }, []);

  useEffect(() => {
    document.title = route.page === 'capture' ? `Probe · ${rows.find((r) => r.id === route.id)?.name ?? route.id}` : `Probe${info ? ` · ${info.service}` : ''}`;
  }, [route, rows, info]);

  return html`<div class="app">
    <header class="topbar">
      <a class="brand" href="#/"><span class="logo" aria-hidden="true"></span>Probe</a>
      ${info ? html`<span class="app-name">${info.service}</span><span class="store muted small" title=${info.root}>store: ${info.driver}</span>` : null}
      <span class=${`live ${live ? 'on' : 'off'}`} data-testid="live" title=${live ? 'Updating as captures are written' : 'Reconnecting…'}>${live ? 'Live' : 'Offline'}</span>
    </header>
    <main>
      ${
        route.page === 'list'
          ? html`<${CaptureList} rows=${rows} loaded=${loaded} filters=${filters} onFilters=${setFilters} />`
          : html`<${CapturePage} key=${route.id} id=${route.id} tab=${route.tab} row=${route.row} />`
      }
    </main>
  </div>`;
}
