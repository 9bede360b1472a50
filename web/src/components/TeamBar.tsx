import { channelPath } from '../router';
import { followLink } from '../links';
import { useStore } from '../state/use-store';

function initials(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  return ((words[0]?.[0] ?? '') + (words[1]?.[0] ?? '')).toUpperCase() || '?';
}

/** The team switcher: one button per team, the current one marked. */
export function TeamBar() {
  const teams = useStore((s) => s.teams);
  const current = useStore((s) => s.currentTeamId);
  return (
    <nav class="teambar" aria-label="Teams">
      <ul>
        {teams.map((t) => {
          const href = channelPath(t.name, 'town-square');
          return (
            <li key={t.id}>
              <a
                href={href}
                class={`teambar__team${t.id === current ? ' is-active' : ''}`}
                aria-current={t.id === current ? 'page' : undefined}
                title={t.display_name}
                onClick={(e) => followLink(e, href)}
              >
                <span aria-hidden="true">{initials(t.display_name)}</span>
                <span class="sr-only">{t.display_name}</span>
              </a>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
