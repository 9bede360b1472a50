import { rest, type ProfilePatch, type User } from '../api';
import { errorText } from '../error-text';
import { navigate } from '../router';
import { appStore } from '../state/app-store';
import { resetSession } from './session';

/** The account settings: profile fields, password, picture, and signing out everywhere. */

function keepMe(me: User): void {
  appStore.set((s) => ({ me, users: { ...s.users, [me.id]: me } }));
}

/** Saves the changed profile fields; the error's words on failure. */
export async function saveProfile(patch: ProfilePatch): Promise<string | undefined> {
  try {
    keepMe(await rest.patchMe(patch));
    return undefined;
  } catch (err) {
    return errorText(err);
  }
}

export async function changePassword(current: string, next: string): Promise<string | undefined> {
  try {
    await rest.updatePassword(current, next);
    return undefined;
  } catch (err) {
    return errorText(err);
  }
}

async function afterPictureChange(): Promise<void> {
  // The picture's update time is what every avatar's URL carries: the user is read again to get it.
  keepMe(await rest.me());
}

export async function uploadPicture(file: Blob): Promise<string | undefined> {
  const me = appStore.get().me;
  if (!me) return 'You are not signed in.';
  try {
    await rest.setProfileImage(me.id, file);
    await afterPictureChange();
    return undefined;
  } catch (err) {
    return errorText(err);
  }
}

export async function resetPicture(): Promise<string | undefined> {
  const me = appStore.get().me;
  if (!me) return 'You are not signed in.';
  try {
    await rest.resetProfileImage(me.id);
    await afterPictureChange();
    return undefined;
  } catch (err) {
    return errorText(err);
  }
}

/** Revokes every session of the account, this one too: the page goes back to the login page. */
export async function signOutEverywhere(): Promise<string | undefined> {
  const me = appStore.get().me;
  if (!me) return undefined;
  try {
    await rest.revokeAllSessions(me.id);
  } catch (err) {
    return errorText(err);
  }
  resetSession();
  appStore.set({ loginNotice: 'You have been signed out of all your sessions.' });
  navigate('/login', { replace: true });
  return undefined;
}
