/**
 * Everything the sidebar needs beyond the channel list (read state of every channel, names of direct-message
 * partners) waits until the open channel's posts are loaded: on a page load the posts are what the reader waits for,
 * and the server answers them sooner when they are not queued behind a request per channel.
 */
let releaseBackground: () => void = () => undefined;
let background: Promise<void> = Promise.resolve();

export function holdBackground(): void {
  background = new Promise((resolve) => (releaseBackground = resolve));
}

export function releaseBackgroundWork(): void {
  releaseBackground();
}

/** Runs `job` once the first screen's posts are in (at once when nothing is held). */
export function afterFirstScreen(job: () => void): void {
  void background.then(job);
}
