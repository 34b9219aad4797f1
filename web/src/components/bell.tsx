/** The bell of the top navigation: the unread count (every 30 s, on focus, and at once when the inbox changes it). */
import { useEffect, useState } from 'preact/hooks';
import { api, unwrap } from '../api.js';
import { NOTICES_CHANGED } from '../notices-event.js';
import { href, navigate } from '../router.js';

export function Bell({ current }: { current: boolean }) {
  const [unread, setUnread] = useState(0);
  useEffect(() => {
    const load = () =>
      void unwrap(api().GET('/api/users/me/notifications/unread-count/')).then(
        (r) => setUnread(r.unread),
        () => undefined,
      );
    const seen = () => document.visibilityState === 'visible' && load();
    load();
    const timer = setInterval(load, 30_000);
    window.addEventListener('focus', load);
    window.addEventListener(NOTICES_CHANGED, load);
    document.addEventListener('visibilitychange', seen);
    return () => {
      clearInterval(timer);
      window.removeEventListener('focus', load);
      window.removeEventListener(NOTICES_CHANGED, load);
      document.removeEventListener('visibilitychange', seen);
    };
  }, []);
  return (
    <a
      class="bell"
      href={href('/inbox')}
      aria-current={current ? 'page' : undefined}
      onClick={(e) => {
        if (e.button || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        navigate('/inbox');
      }}
    >
      <svg aria-hidden="true" viewBox="0 0 24 24" width="20" height="20">
        <path
          fill="currentColor"
          d="M12 22a2.5 2.5 0 0 0 2.45-2h-4.9A2.5 2.5 0 0 0 12 22Zm7-6V11a7 7 0 0 0-5.5-6.84V3a1.5 1.5 0 0 0-3 0v1.16A7 7 0 0 0 5 11v5l-2 2v1h18v-1Z"
        />
      </svg>
      {/* The name is the content ("Notifications, 3 unread"), so the visible count is part of it (WCAG 2.5.3). */}
      <span class="sr-only">Notifications, </span>
      {unread ? <span class="count">{unread > 99 ? '99+' : unread}</span> : <span class="sr-only">0</span>}
      <span class="sr-only"> unread</span>
    </a>
  );
}
