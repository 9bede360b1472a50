import { dayLabel } from '../format';

export function DateSeparator({ day }: { day: number }) {
  const label = dayLabel(day);
  return (
    <div class="date-separator" role="separator" aria-label={label}>
      <span>{label}</span>
    </div>
  );
}
