import type { Schemas } from './wire';

export type StatusValue = 'online' | 'away' | 'dnd' | 'offline';

/** A user's presence as the API shows it (Mattermost's Status); dnd_end_time is in Unix seconds, as there. */
export type Status = Omit<Schemas['Status'], 'status'> & { status: StatusValue };

/** As stored: also what a timed dnd returns to. */
export interface StatusRecord extends Status {
  prev_status: StatusValue | '';
}
