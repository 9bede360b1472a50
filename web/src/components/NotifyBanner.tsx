import { useEffect, useState } from 'preact/hooks';
import { notificationPermission, notificationPermissionStatus, type NotifyPermission } from '../live/desktop-notify';
import '../styles/notifications.css';

const DISMISSED = 'parley:notify-banner-dismissed';

/**
 * Asks for the browser's permission to show desktop notifications, only when the person presses the button (never
 * on load: browsers refuse or penalise requests made without a gesture). Shown while the permission is undecided,
 * until dismissed ("Not now" is remembered in this browser).
 */
export function NotifyBanner() {
  const [permission, setPermission] = useState<NotifyPermission | 'unknown'>('unknown');
  const [dismissed, setDismissed] = useState(() => {
    try {
      return localStorage.getItem(DISMISSED) === '1';
    } catch {
      return false;
    }
  });
  useEffect(() => {
    let live = true;
    const read = () => void notificationPermission().then((p) => live && setPermission(p));
    read();
    // Granted or blocked from the browser's own controls: the banner follows.
    let status: PermissionStatus | undefined;
    void notificationPermissionStatus().then((st) => {
      status = st;
      st?.addEventListener('change', read);
    });
    return () => {
      live = false;
      status?.removeEventListener('change', read);
    };
  }, []);
  if (permission !== 'default' || dismissed) return null;
  const enable = async () => {
    try {
      await Notification.requestPermission();
    } catch {
      // An old browser's callback form, or a refusal: read the outcome below.
    }
    const now = await notificationPermission();
    // Asked once from here: a prompt closed without an answer is not asked again by this banner.
    setPermission(now === 'default' ? 'denied' : now);
  };
  const dismiss = () => {
    try {
      localStorage.setItem(DISMISSED, '1');
    } catch {
      // Private mode: dismissed for this page only.
    }
    setDismissed(true);
  };
  return (
    <section class="notify-banner" aria-label="Desktop notifications">
      <p class="notify-banner__text">Get a notification on this computer when you are mentioned or sent a direct message.</p>
      <div class="notify-banner__actions">
        <button type="button" class="btn btn--primary btn--small" onClick={() => void enable()}>
          Enable desktop notifications
        </button>
        <button type="button" class="btn btn--secondary btn--small" onClick={dismiss}>
          Not now
        </button>
      </div>
    </section>
  );
}
